package javahash

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every expected value below was printed by OpenJDK 17.0.15.

func TestStringIsJavasHashCode(t *testing.T) {
	for s, want := range map[string]int32{
		"":         0,
		"r1":       3583,
		"default":  1544803905,
		"other":    106069776,
		"getOrder": 1961831832,
		"héllo":    103094734,
		"😀x":       54959989, // a surrogate pair and one unit
		"日本":       835047,
		"a very long resource name that overflows int many times over": 2072766834,
	} {
		assert.Equal(t, want, String(s), "%q", s)
	}
}

func TestDoubleIsJavasHashCode(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want int32
	}{
		{0, 0}, {math.Copysign(0, -1), -2147483648}, {1, 1072693248}, {2, 1073741824},
		{4, 1074790400}, {0.5, 1071644672}, {2.5, 1074003968}, {1e300, -164130400},
		{math.NaN(), 2146959360}, {math.MaxFloat64, -2146435072},
		{math.SmallestNonzeroFloat64, 1}, {math.Inf(1), 2146435072}, {20, 1077149696}, {10, 1076101120},
	} {
		assert.Equal(t, c.want, Double(c.v), "%v", c.v)
	}
	// Every NaN is Java's canonical one (doubleToLongBits).
	assert.Equal(t, int32(2146959360), Double(math.Float64frombits(0x7ff0000000000001)))
}

func TestIntegerHashCodes(t *testing.T) {
	for v, want := range map[int64]int32{0: 0, 1: 1, -1: 0, 1 << 40: 256, math.MinInt64: -2147483648, math.MaxInt64: -2147483648, 2000: 2000} {
		assert.Equal(t, want, Long(v), "Long %d", v)
	}
	assert.Equal(t, int32(-5), Int(-5))
	assert.Equal(t, int32(0), Int(int64(1)<<32), "an int keeps the low 32 bits")
	assert.Equal(t, int32(1231), Bool(true))
	assert.Equal(t, int32(1237), Bool(false))
	assert.Equal(t, int32(1), Flag(true))
	assert.Equal(t, int32(0), Flag(false))
}

func TestListIsArrayListsHashCode(t *testing.T) {
	assert.Equal(t, int32(126145), List([]string{"a", "b", "c"}, String))
	assert.Equal(t, int32(1), List([]string(nil), String))
}
