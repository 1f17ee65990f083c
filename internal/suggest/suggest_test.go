package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
