// Package capmap is the runtime's one bounded table: a concurrent map from
// keys that callers choose (resource names, origins, context names) to
// values created on first use, bounded in entries and in key bytes.
//
// Lookups are lock-free (a sync.Map, Go's concurrent hash trie), and a new
// key costs O(1) however many keys were seen. A key that does not fit is
// not stored: LoadOrCreate reports it, and the caller counts it in one
// shared overflow value, so that excess traffic is still counted together
// and never waved through.
//
// Keys that rules or declarations name are not at the mercy of callers: a
// reserved key is admitted past the ordinary limits, up to a ceiling of its
// own, so a flood of junk keys can never take the room a rule needs.
package capmap

import (
	"sync"
	"sync/atomic"
)

// Limits bound a Map.
type Limits struct {
	// Entries and Bytes bound the keys stored without reservation: their
	// number, and the sum of their sizes plus EntryOverhead each.
	Entries int
	Bytes   int64
	// KeyBytes, when positive, is the largest key stored without
	// reservation, so that one huge key cannot take most of Bytes.
	KeyBytes int
	// Reserved bounds, in number, the keys stored with reservation
	// beyond Entries.
	Reserved int
	// Shared, when set, is a budget several maps draw from as well (for
	// example the origins of every resource), checked with the map's own
	// limits.
	Shared *Budget
}

// EntryOverhead is what one stored key costs beyond its own bytes, counted
// against Limits.Bytes, so that short keys cannot escape the byte bound.
const EntryOverhead = 64

// Budget is a bound shared by several maps: unreserved keys of all of them
// together stay within Entries and Bytes.
type Budget struct {
	Entries int64
	Bytes   int64
	entries atomic.Int64
	bytes   atomic.Int64
}

// take charges one key of size bytes, unless that would pass the budget.
func (b *Budget) take(size int64) bool {
	if b == nil {
		return true
	}
	if b.entries.Add(1) > b.Entries {
		b.entries.Add(-1)
		return false
	}
	if b.bytes.Add(size) > b.Bytes {
		b.bytes.Add(-size)
		b.entries.Add(-1)
		return false
	}
	return true
}

// full reports, without charging, whether a key of size bytes cannot fit.
func (b *Budget) full(size int64) bool {
	return b != nil && (b.entries.Load() >= b.Entries || b.bytes.Load()+size > b.Bytes)
}

// Len is the number of keys charged to the budget.
func (b *Budget) Len() int64 { return b.entries.Load() }

// Map is a bounded concurrent map. The zero Map is not usable; make one
// with New.
type Map[K comparable, V any] struct {
	limits Limits
	size   func(K) int

	m  sync.Map
	mu sync.Mutex // serialises creation, so the limits are exact

	entries  atomic.Int64 // unreserved keys
	bytes    atomic.Int64 // their bytes, overhead included
	reserved atomic.Int64 // keys stored past Entries by reservation
	refused  atomic.Int64 // creations refused for want of room
}

// New returns a map bounded by l; size gives a key's size in bytes (nil:
// every key counts EntryOverhead only).
func New[K comparable, V any](l Limits, size func(K) int) *Map[K, V] {
	return &Map[K, V]{limits: l, size: size}
}

// Load returns k's value.
func (m *Map[K, V]) Load(k K) (V, bool) {
	if v, ok := m.m.Load(k); ok {
		return v.(V), true
	}
	var zero V
	return zero, false
}

// LoadOrCreate returns k's value, creating it with create when k is new
// and fits. A reserved key fits past Entries and Bytes, within Reserved.
// ok is false when k is new and does not fit: nothing is stored, and the
// caller counts the key in its overflow value. create runs at most once per
// stored key, under the map's lock; it must not use the map.
func (m *Map[K, V]) LoadOrCreate(k K, reserve bool, create func() V) (v V, ok bool) {
	if v, ok := m.Load(k); ok {
		return v, true
	}
	size := int64(EntryOverhead)
	if m.size != nil {
		size += int64(m.size(k))
	}
	// A flood of new keys into a full map stops here, without the lock.
	if m.limits.KeyBytes > 0 && size-EntryOverhead > int64(m.limits.KeyBytes) && !reserve {
		m.refused.Add(1)
		var zero V
		return zero, false
	}
	if !reserve && (!m.fits(size) || m.limits.Shared.full(size)) {
		m.refused.Add(1)
		var zero V
		return zero, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.Load(k); ok {
		return v, true
	}
	small := m.limits.KeyBytes <= 0 || size-EntryOverhead <= int64(m.limits.KeyBytes)
	switch {
	case small && m.fits(size) && m.limits.Shared.take(size):
		m.entries.Add(1)
		m.bytes.Add(size)
	case reserve && m.reserved.Load() < int64(m.limits.Reserved):
		m.reserved.Add(1)
	default:
		m.refused.Add(1)
		var zero V
		return zero, false
	}
	v = create()
	m.m.Store(k, v)
	return v, true
}

func (m *Map[K, V]) fits(size int64) bool {
	return m.entries.Load() < int64(m.limits.Entries) && m.bytes.Load()+size <= m.limits.Bytes
}

// Range calls f for each key and value, in no order, until f returns false.
func (m *Map[K, V]) Range(f func(K, V) bool) {
	m.m.Range(func(k, v any) bool { return f(k.(K), v.(V)) })
}

// Len is the number of keys stored.
func (m *Map[K, V]) Len() int { return int(m.entries.Load() + m.reserved.Load()) }

// Refused is the number of times a new key did not fit.
func (m *Map[K, V]) Refused() int64 { return m.refused.Load() }
