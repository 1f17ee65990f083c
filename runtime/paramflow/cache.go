package paramflow

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// entry is one argument value's state under one rule: Java keeps it in two
// CacheMaps (last refill or pass time, and tokens) plus a thread count per
// argument index; here it is one record, created whole.
type entry struct {
	k       key
	last    atomic.Int64 // token bucket: last refill; throttling: last pass (ms)
	tokens  atomic.Int64 // token bucket: tokens left
	threads atomic.Int64 // thread grade: calls of the value in flight
	ref     atomic.Bool  // CLOCK's reference bit: used since the hand last passed
}

// Java's ParameterMetric sizes: 4000 values per second of durationInSec,
// at most 200,000.
const (
	baseCapacity = 4000
	maxCapacity  = 200_000
	shardCount   = 16
)

func capacityFor(durationInSec int64) int {
	return int(min(baseCapacity*max(durationInSec, 1), maxCapacity))
}

// cache holds the per-value state of one rule on one resource: a bounded
// map from value to entry, so that a flood of distinct values cannot grow
// memory (Java uses a ConcurrentLinkedHashMap LRU of the same size).
//
// It is split in shards, each a map behind a read-write lock and a CLOCK
// ring (an approximate LRU): finding a value already present takes a read
// lock and allocates nothing; a new value takes its shard's write lock and,
// when the shard is full, evicts the first value the clock hand finds
// unused since its last pass. Values with calls in flight are not evicted
// while others can be, so thread counts survive floods.
type cache struct {
	seed maphash.Seed
	// mix, random per cache, keeps callers from choosing integers that
	// all fall in one shard (seed does so for strings and other keys).
	mix    uint64
	shards [shardCount]shard
}

type shard struct {
	mu sync.RWMutex
	// Integers and strings, the common keys, have maps of their own:
	// hashing an int64 or a string is several times cheaper than hashing
	// the whole key struct.
	ints   map[uint64]*entry
	strs   map[string]*entry
	others map[key]*entry
	ring   []*entry
	hand   int
	cap    int
	_      [64]byte // keep shards' locks on separate cache lines
}

func newCache(capacity int) *cache {
	c := &cache{seed: maphash.MakeSeed()}
	c.mix = maphash.Comparable(c.seed, 0) | 1
	per := max((capacity+shardCount-1)/shardCount, 1)
	for i := range c.shards {
		s := &c.shards[i]
		s.cap = per
		s.ints = map[uint64]*entry{}
		s.strs = map[string]*entry{}
		s.others = map[key]*entry{}
	}
	return c
}

func (c *cache) shard(k *key) *shard {
	var h uint64
	switch k.kind {
	case kindString:
		h = maphash.String(c.seed, k.s)
	case kindAny:
		h = maphash.Comparable(c.seed, k.a)
	default:
		h = (k.n ^ uint64(k.kind)<<56 ^ c.mix) * 0x9E3779B97F4A7C15
	}
	return &c.shards[h>>60] // top 4 bits: 16 shards
}

// get returns k's entry, or nil.
func (c *cache) get(k key) *entry {
	s := c.shard(&k)
	s.mu.RLock()
	e := s.lookup(&k)
	s.mu.RUnlock()
	if e != nil && !e.ref.Load() {
		e.ref.Store(true)
	}
	return e
}

// getOrCreate returns k's entry, creating it with the given state when it
// is absent; created says which.
func (c *cache) getOrCreate(k key, last, tokens, threads int64) (e *entry, created bool) {
	s := c.shard(&k)
	s.mu.RLock()
	e = s.lookup(&k)
	s.mu.RUnlock()
	if e != nil {
		if !e.ref.Load() {
			e.ref.Store(true)
		}
		return e, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e = s.lookup(&k); e != nil {
		return e, false
	}
	e = &entry{k: k}
	e.last.Store(last)
	e.tokens.Store(tokens)
	e.threads.Store(threads)
	s.insert(e)
	return e, true
}

func (s *shard) lookup(k *key) *entry {
	switch k.kind {
	case kindInt:
		return s.ints[k.n]
	case kindString:
		return s.strs[k.s]
	}
	return s.others[*k]
}

func (s *shard) store(e *entry) {
	switch e.k.kind {
	case kindInt:
		s.ints[e.k.n] = e
	case kindString:
		s.strs[e.k.s] = e
	default:
		s.others[e.k] = e
	}
}

func (s *shard) remove(k *key) {
	switch k.kind {
	case kindInt:
		delete(s.ints, k.n)
	case kindString:
		delete(s.strs, k.s)
	default:
		delete(s.others, *k)
	}
}

// insert adds e, evicting with the CLOCK hand when the shard is full.
// Called with s.mu held.
func (s *shard) insert(e *entry) {
	s.store(e)
	if len(s.ring) < s.cap {
		s.ring = append(s.ring, e)
		return
	}
	n := len(s.ring)
	for tries := 0; ; tries++ {
		v := s.ring[s.hand]
		// Spare recently used values and values in flight; after two full
		// turns (everything busy), evict anyway to keep the bound.
		if tries < 2*n && (v.ref.Load() || v.threads.Load() > 0) {
			v.ref.Store(false)
			s.hand = (s.hand + 1) % n
			continue
		}
		s.remove(&v.k)
		s.ring[s.hand] = e
		s.hand = (s.hand + 1) % n
		return
	}
}

// len is the number of values held.
func (c *cache) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += len(s.ints) + len(s.strs) + len(s.others)
		s.mu.RUnlock()
	}
	return n
}
