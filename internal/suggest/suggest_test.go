package suggest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNearest(t *testing.T) {
	keys := []string{"name", "blockHandler", "fallback", "defaultFallback", "ignore", "traffic", "type", "args", "batch", "wrapper"}
	names := []string{"getOrder", "listOrders", "flow", "paramFlow", "/api/order"}
	tests := []struct {
		name  string
		in    string
		known []string
		want  string
	}{
		{"one edit", "fallbak", keys, "fallback"},
		{"one edit in a long word", "defaultFalback", keys, "defaultFallback"},
		{"case alone", "blockhandler", keys, "blockHandler"},
		{"case and a typo", "BlokHandler", keys, "blockHandler"},
		{"swapped neighbours", "wbe", []string{"common", "web", "rpc"}, "web"},
		{"short word, one edit", "nme", keys, "name"},
		{"nothing near", "zzzzzzz", keys, ""},
		{"a single letter suggests nothing", "x", keys, ""},
		{"missing letter", "getOrdr", names, "getOrder"},
		{"extra letter", "getOrders", names, "getOrder"},
		{"shouting", "GETORDER", names, "getOrder"},
		{"transposed", "flwo", names, "flow"},
		{"case of one letter", "paramflow", names, "paramFlow"},
		{"path", "/api/orders", names, "/api/order"},
		{"different word", "deleteEverything", names, ""},
		{"empty", "", names, ""},
		{"no words", "a", nil, ""},
		{"ties go to the first in order", "ab", []string{"ac", "aa"}, "aa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Nearest(tt.in, tt.known))
		})
	}
}

func TestDistance(t *testing.T) {
	assert.Equal(t, 0, Distance("abc", "abc"))
	assert.Equal(t, 1, Distance("abc", "acb"))
	assert.Equal(t, 3, Distance("", "abc"))
	assert.Equal(t, 3, Distance("kitten", "sitting"))
	assert.Equal(t, 1, Distance("订单", "订阅单"))
	assert.Equal(t, 1, Distance("Ab", "ab"), "case-sensitive")
}

// nearestByEveryDistance is the package's rule read literally: every
// word's distance, then the nearest's limit.
func nearestByEveryDistance(s string, known []string) string {
	best, bestD := "", -1
	for _, k := range known {
		if strings.EqualFold(s, k) {
			return k
		}
		d := Distance(strings.ToLower(s), strings.ToLower(k))
		if bestD < 0 || d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > max(1, min(len([]rune(s)), len([]rune(best)))/3) {
		return ""
	}
	return best
}

func TestNearestSkipsOnlyWordsOutOfReach(t *testing.T) {
	known := []string{"a", "ab", "flow", "degrade", "paramFlow", "system", "authority", "adaptive", "clusterConfig", "订单"}
	rng := rand.New(rand.NewPCG(1, 2))
	letters := []rune("abcdefgilmnoprstuwyFACS订单 ")
	for range 20_000 {
		word := make([]rune, rng.IntN(16))
		for i := range word {
			word[i] = letters[rng.IntN(len(letters))]
		}
		s := string(word)
		if k := known[rng.IntN(len(known))]; rng.IntN(2) == 0 && len(k) > 1 {
			s = k[:len(k)-1] + s[:min(len(s), rng.IntN(3))] // near a word
		}
		require.Equal(t, nearestByEveryDistance(s, known), Nearest(s, known), "%q", s)
	}
}

// A name of megabytes used to be compared with every word in full (a
// 4 MiB section name: 475 ms); a word out of reach now costs nothing past
// counting the name. The datasource package's hostile tests hold the
// bound on a whole document.
func BenchmarkNearestOfA4MiBName(b *testing.B) {
	huge := strings.Repeat("flow", 1<<20)
	known := []string{"flow", "degrade", "system", "authority", "paramFlow", "adaptive"}
	b.SetBytes(int64(len(huge)))
	for b.Loop() {
		Nearest(huge, known)
	}
}

// FuzzNearest: whatever the name and words, Nearest answers as comparing
// every word would, never panics, and answers a word of the list or "".
func FuzzNearest(f *testing.F) {
	for _, seed := range [][2]string{
		{"flwo", "flow,degrade,system"}, {"", ""}, {"x", "x"}, {"订阅单", "订单,订"},
		{"\xff\xfe", "\xff,ab"}, {"ParamFlow", "paramFlow,PARAMFLOW"}, {"aaaaaaaaaaaa", "aaaaaaaab,a"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, s, words string) {
		known := strings.Split(words, ",")
		if len(s) > 256 || len(known) > 32 {
			return // the literal rule's cost is what Nearest avoids
		}
		got := Nearest(s, known)
		require.Equal(t, nearestByEveryDistance(s, known), got, "%q in %q", s, known)
		if got != "" {
			require.Contains(t, known, got)
		}
	})
}
