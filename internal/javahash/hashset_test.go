package javahash

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ints(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Split(strings.TrimSuffix(s, ","), ",") {
		n, err := strconv.Atoi(f)
		require.NoError(t, err)
		out = append(out, n)
	}
	return out
}

// setOrder adds elements 0..n-1 with the given hash codes and returns the
// iteration order.
func setOrder(hashes []int) []int {
	s := NewSet[int]()
	for i, h := range hashes {
		s.Add(i, int32(h))
	}
	return s.Elements()
}

// The orders Java 17's HashSet gives elements of these hash codes: random
// ones over several resizes, and bins crowded enough to become trees
// (step64x20: the tree's root heads the bin), split on resize, with
// negative hashes in the same tree, and turned back into lists.
func TestSetOrderIsJava17s(t *testing.T) {
	f, err := os.Open("testdata/hashset_java17.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	cases := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		parts := strings.Split(line, "|")
		require.Len(t, parts, 3, line)
		t.Run(parts[0], func(t *testing.T) {
			assert.Equal(t, ints(t, parts[2]), setOrder(ints(t, parts[1])))
		})
		cases++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 7, cases)
}

// The attacker's set: 100,000 distinct elements of one hash code. The bin
// is a red-black tree, so each insertion costs O(log n): the tree's height
// stays within 2*log2(n+1).
func TestSetOfOneHashCodeStaysBalanced(t *testing.T) {
	const n = 100_000
	s := NewSet[int]()
	for i := range n {
		s.Add(i, 7)
	}
	require.Equal(t, n, s.Len())
	root := s.table[s.index(spread(7))]
	require.True(t, root.tree)
	assert.LessOrEqual(t, height(root), 2*17, "2*log2(n+1) for n = 100,000")
	assert.Len(t, s.Elements(), n)
}

func height[T any](p *node[T]) int {
	if p == nil {
		return 0
	}
	return 1 + max(height(p.left), height(p.right))
}
