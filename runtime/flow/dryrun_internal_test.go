package flow

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// laterRefuser is a slot after the flow slot that refuses every third
// call, so that the flow slot's Exit sees calls a later slot blocked.
type laterRefuser struct {
	mu sync.Mutex
	n  int
}

func (s *laterRefuser) Bind(*runtime.Resource) runtime.Checker { return s }
func (s *laterRefuser) Check(c *runtime.Call) *runtime.BlockError {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.n%3 == 0 {
		return c.Block(runtime.BlockCustom, nil, nil)
	}
	return nil
}
func (*laterRefuser) Exit(*runtime.Call) {}

// Under concurrency, every call a dry-run gate refused is forgotten at its
// exit or at a later slot's refusal, and the thread gate ends at zero.
func TestDryRunGatesForgetEveryRefusal(t *testing.T) {
	clocktest.Install(t)
	const res = "flow.dryrun.internal"
	require.NoError(t, LoadRules([]Rule{
		{Resource: res, Grade: GradeThread, Count: 2, DryRun: true},
		{Resource: res, Grade: GradeQPS, Count: 100, DryRun: true},
	}))
	t.Cleanup(func() { _ = LoadRules(nil) })
	runtime.RegisterSlot("flow-dryrun-later", runtime.OrderFlow+1, &laterRefuser{})
	t.Cleanup(func() { runtime.UnregisterSlot("flow-dryrun-later") })

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				if e, b := runtime.Entry(context.Background(), res); b == nil {
					e.Exit()
				}
			}
		})
	}
	wg.Wait()
	for _, cr := range current.Load().exact[res] {
		s := cr.states.byResource[res]
		assert.Zero(t, s.refused.Len(), "%s: every refusal forgotten", cr.rule)
		if cr.rule.Grade == GradeThread {
			assert.Zero(t, s.gates.single.threads.Load(), "no thread token left or owed")
		}
	}
	assert.Positive(t, runtime.LookupResource(res).DryRunBlockCount(runtime.BlockFlow))
}
