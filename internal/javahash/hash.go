// Package javahash reproduces what Java computes when Sentinel puts rules in
// a java.util.HashSet: the hashCode of Java's standard classes (String,
// Double, Long, Integer, Boolean, ArrayList) and the iteration order of a
// HashSet (Set), so that a rule set is checked in the order Java Sentinel
// checks it.
//
// Java's int arithmetic wraps; so does Go's int32, so a Java hashCode
// method (result = 31 * result + field) reads the same in Go over int32.
package javahash

import (
	"math"
	"unicode/utf16"
)

// String is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over
// the string's UTF-16 code units (a character outside the Basic
// Multilingual Plane counts as its two surrogates). Invalid UTF-8 reads as
// U+FFFD, as Go's range over a string decodes it.
func String(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			h = 31*h + r1
			h = 31*h + r2
			continue
		}
		h = 31*h + r
	}
	return h
}

// Double is java.lang.Double.hashCode: the two halves of
// doubleToLongBits(v) xored (every NaN is Java's canonical NaN; -0.0 and
// 0.0 differ).
func Double(v float64) int32 {
	if v != v {
		return Long(0x7ff8000000000000)
	}
	return Long(int64(math.Float64bits(v)))
}

// Long is java.lang.Long.hashCode: (int)(v ^ (v >>> 32)).
func Long(v int64) int32 {
	u := uint64(v)
	return int32(uint32(u ^ u>>32))
}

// Int is java.lang.Integer.hashCode of a value Java holds in an int: its
// low 32 bits, as Java's (int) cast keeps them.
func Int[I ~int | ~int64 | ~int32](v I) int32 { return int32(v) }

// Bool is java.lang.Boolean.hashCode: 1231 for true, 1237 for false.
// (Sentinel's own hashCode methods use (b ? 1 : 0) instead: Flag.)
func Bool(b bool) int32 {
	if b {
		return 1231
	}
	return 1237
}

// Flag is the (b ? 1 : 0) that Sentinel's hashCode methods add for a
// boolean field.
func Flag(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// List is java.util.List.hashCode (ArrayList's): 1, then 31*h + the hash
// of each element in order.
func List[T any](elems []T, hash func(T) int32) int32 {
	h := int32(1)
	for _, e := range elems {
		h = 31*h + hash(e)
	}
	return h
}
