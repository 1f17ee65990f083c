package datasource

import (
	"hash/maphash"
	"math"
	"reflect"
)

// This file pairs the rules of a push with the rules in force they stand
// for, by key. Java's dashboard pushes every rule of a kind at once, so
// comparing each pushed rule with each rule in force would cost the
// product of the two counts (3,000 over 3,000: seconds); looking each up
// by key costs time linear in the two.

// claims are the rules in force already paired with a pushed rule: each
// stands for one pushed rule at most. The indexes built over one claims
// share it.
type claims struct{ used []bool }

func newClaims(inForce int) *claims { return &claims{used: make([]bool, inForce)} }

// keyIndex finds, by key, the first rule in force not yet claimed.
type keyIndex[K comparable] struct {
	claims *claims
	queue  map[K][]int // the indexes of the rules in force with a key, in order
}

// indexBy indexes the rules in force 0..len(c.used)-1 by key(j).
func indexBy[K comparable](c *claims, key func(j int) K) *keyIndex[K] {
	x := &keyIndex[K]{claims: c, queue: make(map[K][]int, len(c.used))}
	for j := range c.used {
		k := key(j)
		x.queue[k] = append(x.queue[k], j)
	}
	return x
}

// claim claims the first rule in force with key k that is not claimed
// and for which same holds (nil: any), and returns its index, or -1.
// Claimed rules are dropped from the front of the key's queue as they
// are met, so each is stepped over once in all: same is for confirming
// a hash key, which fails only on a collision.
func (x *keyIndex[K]) claim(k K, same func(j int) bool) int {
	q := x.queue[k]
	for len(q) > 0 && x.claims.used[q[0]] {
		q = q[1:]
	}
	x.queue[k] = q
	for _, j := range q {
		if !x.claims.used[j] && (same == nil || same(j)) {
			x.claims.used[j] = true
			return j
		}
	}
	return -1
}

// valueHash hashes v so that values reflect.DeepEqual holds equal hash
// alike: pointers are followed, unexported fields read, and a map counts
// by its length only (a collision is settled by the caller's DeepEqual).
func valueHash(seed maphash.Seed, v reflect.Value) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	writeValue(&h, v)
	return h.Sum64()
}

func writeValue(h *maphash.Hash, v reflect.Value) {
	word := func(u uint64) {
		var b [8]byte
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		_, _ = h.Write(b[:])
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			word(1)
		} else {
			word(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		word(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		word(v.Uint())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if f == 0 {
			f = 0 // -0 is DeepEqual to 0
		}
		word(math.Float64bits(f))
	case reflect.String:
		word(uint64(v.Len()))
		_, _ = h.WriteString(v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			word(0)
			return
		}
		word(1)
		writeValue(h, v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			writeValue(h, v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		word(uint64(v.Len()))
		for i := range v.Len() {
			writeValue(h, v.Index(i))
		}
	case reflect.Map:
		word(uint64(v.Len()))
	}
}
