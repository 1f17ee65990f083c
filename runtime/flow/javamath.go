package flow

import "math"

// Java's numeric conversions, which the controllers' arithmetic depends
// on. Go's float-to-int conversion of an out-of-range value is
// implementation-defined; Java's saturates and maps NaN to 0.

// javaInt is Java's (int) cast of a double.
func javaInt(f float64) int32 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

// javaLong is Java's (long) cast of a double.
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// javaRound is Java's Math.round(double): floor(x + 0.5), saturating.
func javaRound(f float64) int64 { return javaLong(math.Floor(f + 0.5)) }

// admissionLimit is the most tokens a reject rule admits in a window:
// Java blocks when curCount + acquire > count with integer curCount and
// acquire, so an integer total passes while it is <= floor(count).
func admissionLimit(count float64) int64 {
	const ceiling = 1 << 62 // leaves room for the sum of a window and a batch
	if count >= ceiling {
		return ceiling
	}
	return int64(math.Floor(count))
}
