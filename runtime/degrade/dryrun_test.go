package degrade_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorCountRule opens after more than 2 errors among at least 3 calls of
// a second, for one second.
func errorCountRule(res string, dry bool) degrade.Rule {
	return degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 2, TimeWindow: 1,
		MinRequestAmount: 3, StatIntervalMs: 1000, DryRun: dry}
}

func wouldBlocks(res string) int64 {
	r := runtime.LookupResource(res)
	if r == nil {
		return 0
	}
	return r.DryRunBlockCount(runtime.BlockDegrade)
}

// pair drives the same traffic through an enforcing and a dry-run breaker.
type pair struct {
	t                *testing.T
	enf, dry         string
	blocks, wouldNow int64
	held             map[string][2]*runtime.SentinelEntry
}

func (p *pair) open(id string) {
	e, b := runtime.Entry(context.Background(), p.enf)
	if b != nil {
		p.blocks++
	}
	d, b := runtime.Entry(context.Background(), p.dry)
	require.Nil(p.t, b, "the dry run admits %s", id)
	p.held[id] = [2]*runtime.SentinelEntry{e, d}
}

func (p *pair) exit(id string, err error) {
	for _, e := range p.held[id] {
		e.Exit(runtime.WithError(err))
	}
	delete(p.held, id)
}

func (p *pair) call(id string, err error) {
	p.open(id)
	p.exit(id, err)
}

// check compares the breakers' states and the blocks with the would-be
// blocks.
func (p *pair) check(step string) {
	p.t.Helper()
	require.Equal(p.t, p.blocks, wouldBlocks(p.dry)-p.wouldNow, step)
	require.Equal(p.t, state(p.t, p.enf, 0), state(p.t, p.dry, 0), "%s: the dry-run breaker is in the state the enforcing one is in", step)
}

// A dry-run breaker goes through the states the enforcing breaker goes
// through on the same traffic, and counts a would-be block for each call
// the enforcing one refuses; a call it refused is no sample, even when it
// completes after a probe closed the breaker.
func TestDryRunBreakerCountsTheEnforcingBreakersBlocks(t *testing.T) {
	clk := setup(t)
	load(t, errorCountRule("dry-br-enf", false), errorCountRule("dry-br-dry", true))
	p := &pair{t: t, enf: "dry-br-enf", dry: "dry-br-dry", wouldNow: wouldBlocks("dry-br-dry"), held: map[string][2]*runtime.SentinelEntry{}}

	p.call("e1", errBusiness)
	p.call("e2", errBusiness)
	p.check("closed")
	p.call("e3", errBusiness) // 3 errors > 2: open
	p.check("opened")
	assert.Equal(t, degrade.Open, state(t, "dry-br-dry", 0))
	p.call("r1", nil)
	p.call("r2", nil)
	p.check("open: refused")

	clk.Advance(time.Second)
	p.open("probe")
	p.open("q1") // the probe is out: refused
	p.open("q2")
	p.check("half open")
	p.exit("probe", nil) // good: closed, window reset
	p.exit("q1", errBusiness)
	p.exit("q2", errBusiness)
	p.check("closed again: q1 and q2 were no samples")
	assert.Equal(t, degrade.Closed, state(t, "dry-br-dry", 0))

	p.call("f1", errBusiness)
	p.call("f2", errBusiness)
	p.check("two errors of three needed")
	p.call("f3", errBusiness)
	p.call("f4", nil)
	p.check("opened again")

	clk.Advance(time.Second)
	p.call("bad-probe", errBusiness) // back to open
	p.call("after", nil)
	p.check("bad probe")
	assert.Equal(t, int64(6), p.blocks, "r1, r2, q1, q2, f4, after")
}

// Switching dryRun keeps the breaker: an open dry-run breaker is open
// when it enforces, and a call it refused in dry run is no sample after
// the switch either.
func TestDryRunToggleKeepsTheOpenBreaker(t *testing.T) {
	clk := setup(t)
	load(t, errorCountRule("dry-br-toggle", true))
	for range 3 {
		require.True(t, call(clk, "dry-br-toggle", 0, errBusiness))
	}
	var info degrade.BreakerInfo
	for _, b := range degrade.Breakers() {
		if b.Resource == "dry-br-toggle" {
			info = b
		}
	}
	assert.Equal(t, degrade.Open, info.State, "the state it would be in")
	assert.True(t, info.Rule.DryRun)
	before := wouldBlocks("dry-br-toggle")
	require.True(t, call(clk, "dry-br-toggle", 0, nil), "dry run: admitted")
	assert.Equal(t, before+1, wouldBlocks("dry-br-toggle"))

	load(t, errorCountRule("dry-br-toggle", false))
	assert.False(t, call(clk, "dry-br-toggle", 0, nil), "enforcing: the breaker is still open")

	// Back to dry run; a probe and a refused call straddle the switch to
	// enforcing.
	load(t, errorCountRule("dry-br-toggle", true))
	clk.Advance(time.Second)
	probe, b := runtime.Entry(context.Background(), "dry-br-toggle")
	require.Nil(t, b)
	refused, b := runtime.Entry(context.Background(), "dry-br-toggle")
	require.Nil(t, b)
	load(t, errorCountRule("dry-br-toggle", false))
	probe.Exit()
	assert.Equal(t, degrade.Closed, state(t, "dry-br-toggle", 0))
	refused.Exit(runtime.WithError(errBusiness))
	require.True(t, call(clk, "dry-br-toggle", 0, errBusiness))
	require.True(t, call(clk, "dry-br-toggle", 0, errBusiness))
	assert.Equal(t, degrade.Closed, state(t, "dry-br-toggle", 0), "two samples: the refused call was none")
	require.True(t, call(clk, "dry-br-toggle", 0, errBusiness))
	assert.Equal(t, degrade.Open, state(t, "dry-br-toggle", 0))
}
