package datasource

import (
	"hash/maphash"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKeyIndexClaimsEachRuleInForceOnceInOrder(t *testing.T) {
	inForce := []string{"a", "b", "a", "a"}
	taken := newClaims(len(inForce))
	byName := indexBy(taken, func(j int) string { return inForce[j] })
	byAll := indexBy(taken, func(int) int { return 0 })
	assert.Equal(t, 0, byName.claim("a", nil), "the first with the key")
	assert.Equal(t, 1, byAll.claim(0, nil), "the first not claimed through another index")
	assert.Equal(t, 3, byName.claim("a", func(j int) bool { return j != 2 }), "one that fails same is stepped over, not claimed")
	assert.Equal(t, 2, byAll.claim(0, nil))
	assert.Equal(t, -1, byName.claim("a", nil), "each once")
	assert.Equal(t, -1, byName.claim("c", nil))
}

func TestValueHashOfDeepEqualValuesIsEqual(t *testing.T) {
	type item struct {
		N      *int
		F      float64
		hidden string
		List   []string
	}
	one, alsoOne, two := 1, 1, 2
	seed := maphash.MakeSeed()
	hash := func(v item) uint64 { return valueHash(seed, reflect.ValueOf(v)) }
	a := item{N: &one, F: 0, hidden: "x", List: []string{"p", "q"}}
	assert.Equal(t, hash(a), hash(item{N: &alsoOne, F: -0.0, hidden: "x", List: []string{"p", "q"}}), "pointers are followed, -0 is 0")
	for _, b := range []item{
		{N: &two, hidden: "x", List: []string{"p", "q"}},
		{N: &one, hidden: "y", List: []string{"p", "q"}},
		{N: &one, hidden: "x", List: []string{"pq"}},
		{N: nil, hidden: "x", List: []string{"p", "q"}},
	} {
		assert.NotEqual(t, hash(a), hash(b), "%+v", b)
	}
}
