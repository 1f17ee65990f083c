package dryrun

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

type call struct{ _ int }

func TestRefusedAddTake(t *testing.T) {
	var r Refused[call]
	a, b := &call{}, &call{}
	assert.False(t, r.Take(a), "empty set")
	r.Add(a)
	assert.True(t, r.Has(a))
	assert.False(t, r.Has(b))
	assert.False(t, r.Take(b), "another call was not refused")
	assert.True(t, r.Take(a))
	assert.False(t, r.Take(a), "taken once")
	assert.Equal(t, 0, r.Len())
}

func TestRefusedConcurrent(t *testing.T) {
	var r Refused[call]
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				c := &call{}
				r.Add(c)
				assert.True(t, r.Take(c))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 0, r.Len())
}

func BenchmarkRefusedTakeEmpty(b *testing.B) {
	var r Refused[call]
	c := &call{}
	b.ReportAllocs()
	for b.Loop() {
		r.Take(c)
	}
}
