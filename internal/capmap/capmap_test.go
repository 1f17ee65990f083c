package capmap

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func strLen(s string) int { return len(s) }

func TestEntriesBound(t *testing.T) {
	m := New[string, int](Limits{Entries: 3, Bytes: 1 << 20}, strLen)
	for i := range 10 {
		_, ok := m.LoadOrCreate(strconv.Itoa(i), false, func() int { return i })
		assert.Equal(t, i < 3, ok, "key %d", i)
	}
	assert.Equal(t, 3, m.Len())
	assert.EqualValues(t, 7, m.Refused())
	v, ok := m.LoadOrCreate("1", false, func() int { return -1 })
	require.True(t, ok, "a stored key is found when the map is full")
	assert.Equal(t, 1, v)
}

func TestBytesBound(t *testing.T) {
	m := New[string, int](Limits{Entries: 1000, Bytes: 3 * (EntryOverhead + 100)}, strLen)
	long := strings.Repeat("x", 100)
	for i := range 5 {
		_, ok := m.LoadOrCreate(long[:100-len(strconv.Itoa(i))]+strconv.Itoa(i), false, func() int { return i })
		assert.Equal(t, i < 3, ok, "key %d", i)
	}
	_, ok := m.LoadOrCreate(strings.Repeat("y", 1<<20), false, func() int { return 0 })
	assert.False(t, ok, "one huge key cannot take the byte budget")
}

func TestReservedKeysFitPastTheLimits(t *testing.T) {
	m := New[string, int](Limits{Entries: 2, Bytes: 1 << 20, Reserved: 2}, strLen)
	for i := range 100 {
		m.LoadOrCreate("junk"+strconv.Itoa(i), false, func() int { return 0 })
	}
	_, ok := m.LoadOrCreate("ruleA", true, func() int { return 1 })
	assert.True(t, ok, "a reserved key fits in a map full of junk")
	_, ok = m.LoadOrCreate("ruleB", true, func() int { return 2 })
	assert.True(t, ok)
	_, ok = m.LoadOrCreate("ruleC", true, func() int { return 3 })
	assert.False(t, ok, "reservations have a ceiling too")
	assert.Equal(t, 4, m.Len())
}

func TestSharedBudget(t *testing.T) {
	b := &Budget{Entries: 5, Bytes: 1 << 20}
	m1 := New[string, int](Limits{Entries: 4, Bytes: 1 << 20, Shared: b}, strLen)
	m2 := New[string, int](Limits{Entries: 4, Bytes: 1 << 20, Shared: b}, strLen)
	stored := 0
	for i := range 4 {
		for _, m := range []*Map[string, int]{m1, m2} {
			if _, ok := m.LoadOrCreate(strconv.Itoa(i), false, func() int { return i }); ok {
				stored++
			}
		}
	}
	assert.Equal(t, 5, stored)
	assert.EqualValues(t, 5, b.Len())
}

func TestCreateOncePerKeyUnderContention(t *testing.T) {
	m := New[string, *int](Limits{Entries: 50, Bytes: 1 << 20}, strLen)
	var mu sync.Mutex
	created := map[string]int{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				k := strconv.Itoa((i + g) % 100)
				m.LoadOrCreate(k, false, func() *int {
					mu.Lock()
					created[k]++
					mu.Unlock()
					return new(int)
				})
			}
		}()
	}
	wg.Wait()
	assert.Len(t, created, 50)
	for k, n := range created {
		assert.Equal(t, 1, n, "key %s", k)
	}
	n := 0
	m.Range(func(string, *int) bool { n++; return true })
	assert.Equal(t, 50, n)
}

func BenchmarkLoadOrCreate(b *testing.B) {
	for _, tc := range []struct {
		name string
		keys int
	}{{"hit", 1}, {"new-into-full", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			m := New[string, int](Limits{Entries: 1000, Bytes: 1 << 20}, strLen)
			for i := range 1000 {
				m.LoadOrCreate("k"+strconv.Itoa(i), false, func() int { return i })
			}
			keys := make([]string, 1024)
			for i := range keys {
				if tc.keys == 1 {
					keys[i] = "k" + strconv.Itoa(i%1000)
				} else {
					keys[i] = "new" + strconv.Itoa(i)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				m.LoadOrCreate(keys[i&1023], false, func() int { return 0 })
			}
		})
	}
}
