package captest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// namingCounter is a slot whose rules name nothing, counting how often
// the runtime asks.
type namingCounter struct{ asked atomic.Int64 }

func (*namingCounter) Bind(*runtime.Resource) runtime.Checker { return nil }
func (n *namingCounter) NamesResource(string) runtime.Naming {
	n.asked.Add(1)
	return runtime.NotNamed
}

// fillResources enters names until one no longer gets a resource.
func fillResources(t *testing.T) {
	t.Helper()
	for i := 0; ; i++ {
		name := fmt.Sprintf("overflow-fill-%d", i)
		e, b := runtime.Entry(context.Background(), name)
		if b == nil {
			e.Exit()
		}
		if runtime.LookupResource(name) == nil {
			return
		}
		require.Less(t, i, 3*runtime.MaxResources, "the table never fills")
	}
}

// Past MaxResources every call to a name without a resource asked every
// slot's rules again (the regexes of four rule kinds: 100 µs a call with
// 20 ordinary patterns, against 109 ns for a known resource). The answer
// is asked once per name and rules in force.
func TestOverflowCallsDoNotAskTheRulesAgain(t *testing.T) {
	fillResources(t)
	counter := &namingCounter{}
	runtime.RegisterSlot("naming-counter", 0, counter)
	defer runtime.UnregisterSlot("naming-counter")

	for range 100 {
		e, b := runtime.Entry(context.Background(), "overflow-repeated")
		require.Nil(t, b)
		require.True(t, e.Resource().Overflow())
		e.Exit()
	}
	assert.EqualValues(t, 1, counter.asked.Load(), "asked once for a name called 100 times")

	// New rules may name it: they are asked again, once.
	runtime.RulesChanged()
	for range 10 {
		e, _ := runtime.Entry(context.Background(), "overflow-repeated")
		e.Exit()
	}
	assert.EqualValues(t, 2, counter.asked.Load())
}
