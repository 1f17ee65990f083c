package web

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func TestSparesHandBackWhatARefusalLeft(t *testing.T) {
	var s Spares[[4]int]
	slot := s.slot()
	a := s.get(slot)
	b := s.get(slot)
	assert.NotSame(t, a, b, "an empty slot gives a new allocation")
	s.put(slot, a)
	s.put(slot, b) // the slot is full: b is left to the collector
	assert.Same(t, a, s.get(slot))
	assert.NotSame(t, a, s.get(slot), "taken once")
}

// No allocation is ever handed to two requests at once.
func TestSparesHandEachAllocationToOneRequestAtATime(t *testing.T) {
	var s Spares[atomic.Bool]
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				slot := s.slot()
				a := s.get(slot)
				if !a.t.CompareAndSwap(false, true) {
					t.Error("an allocation in use was handed out again")
					return
				}
				a.t.Store(false)
				s.put(slot, a)
			}
		}()
	}
	wg.Wait()
}

// An entry kept alone (nethttp.Engine.EnterEntry, for GoFrame) is the
// size of an entry, in the entry's size class, not a class above it.
func TestAnEntryAloneIsTheSizeOfAnEntry(t *testing.T) {
	assert.Equal(t, unsafe.Sizeof(runtime.SentinelEntry{}), unsafe.Sizeof(EntryAnd[struct{}]{}))
}
