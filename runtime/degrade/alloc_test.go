package degrade_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An admitted call through closed breakers allocates its entry and nothing
// else, whatever kind of rule the breaker has.
func TestAdmittedCallsAllocateOnlyTheEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	setup(t) // the clock stands still: no bucket is replaced mid-run
	tests := []struct {
		name     string
		resource string
		rule     degrade.Rule
	}{
		{"slow ratio", "alloc-slow", degrade.Rule{Resource: "alloc-slow", Count: 1000, SlowRatioThreshold: 1, TimeWindow: 1}},
		{"error ratio", "alloc-ratio", degrade.Rule{Resource: "alloc-ratio", Grade: degrade.ErrorRatio, Count: 0.5, TimeWindow: 1}},
		{"error count", "alloc-count", degrade.Rule{Resource: "alloc-count", Grade: degrade.ErrorCount, Count: 5, TimeWindow: 1}},
		{"regex", "alloc-regex-a", degrade.Rule{Resource: "alloc-regex-.*", Regex: true, Grade: degrade.ErrorCount, Count: 5, TimeWindow: 1}},
		{"default", "alloc-default", degrade.Rule{Resource: "*", Grade: degrade.ErrorCount, Count: 5, TimeWindow: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load(t, tt.rule)
			r := runtime.Declare(runtime.ResourceSpec{Name: tt.resource})
			ctx := context.Background()
			e, _ := r.Entry(ctx) // the first call binds the chain and creates nodes
			e.Exit()
			allocs := testing.AllocsPerRun(200, func() {
				e, b := r.Entry(ctx)
				if b != nil {
					t.Fatal(b)
				}
				e.Exit()
			})
			assert.LessOrEqual(t, allocs, 1.0)
			assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
				tk, b := r.Enter(ctx)
				if b != nil {
					t.Fatal(b)
				}
				tk.Exit()
			}), "Enter")
			assert.Len(t, degrade.Breakers(), 1)
		})
	}
}

func TestRuleString(t *testing.T) {
	r := &degrade.Rule{Resource: "a.*", Regex: true, Grade: degrade.ErrorRatio, Count: 0.5, TimeWindow: 10}
	assert.Equal(t, `degrade rule {resource "a.*" (regex), error ratio above 0.5, minRequestAmount 5 per 1000 ms, open 10 s}`, r.String())
	r = &degrade.Rule{Resource: "b", Count: 20, SlowRatioThreshold: 0.8, TimeWindow: 1, MinRequestAmount: 3}
	assert.Equal(t, `degrade rule {resource "b", slow ratio above 0.8 of calls slower than 20 ms, minRequestAmount 3 per 1000 ms, open 1 s}`, r.String())
}

// A call an open breaker refuses allocates its entry and nothing else:
// every refusal by the breaker gets the same BlockError, built with its
// rule.
func TestRefusedCallsAllocateOnlyTheEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	setup(t)
	load(t, degrade.Rule{Resource: "refuse-open", Grade: degrade.ErrorCount, Count: 1, MinRequestAmount: 1, TimeWindow: 60})
	r := runtime.Declare(runtime.ResourceSpec{Name: "refuse-open"})
	ctx := context.Background()
	for range 2 { // two errors exceed the count of one: the breaker opens
		e, b := r.Entry(ctx)
		require.Nil(t, b)
		e.SetError(errors.New("down"))
		e.Exit()
	}
	_, first := r.Entry(ctx)
	require.NotNil(t, first, "the breaker is open")
	allocs := testing.AllocsPerRun(200, func() {
		if e, b := r.Entry(ctx); b == nil {
			e.Exit()
			t.Fatal("admitted")
		}
	})
	assert.Equal(t, 1.0, allocs)
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		if tk, b := r.Enter(ctx); b == nil {
			tk.Exit()
			t.Fatal("admitted")
		}
	}), "Enter: no entry, the breaker's one BlockError")
	_, again := r.Entry(ctx)
	assert.Same(t, first, again, "one BlockError for every refusal by the breaker")
	assert.Equal(t, runtime.BlockDegrade, again.BlockType())
	assert.Equal(t, "refuse-open", again.Rule().(*degrade.Rule).Resource)
}
