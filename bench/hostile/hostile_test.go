// Package hostile benchmarks what hostile names cost: binding a new name
// under the largest regex rule sets the caps allow, and a call past
// runtime.MaxResources against a call to a known resource. It is its own
// binary because it fills the resource table:
//
//	go test ./bench/hostile -run x -bench . -benchmem -count 6
package hostile

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}

// loadRegexRules loads every pattern as an admitting regex rule of each
// of the four kinds that match names by pattern.
func loadRegexRules(b *testing.B, patterns []string) {
	b.Helper()
	var fr []flow.Rule
	var dr []degrade.Rule
	var ar []authority.Rule
	var pr []paramflow.Rule
	for _, p := range patterns {
		fr = append(fr, flow.Rule{Resource: p, Regex: true, Grade: flow.GradeQPS, Count: 1e12})
		dr = append(dr, degrade.Rule{Resource: p, Regex: true, Grade: degrade.ErrorCount, Count: 1e9, TimeWindow: 10})
		ar = append(ar, authority.Rule{Resource: p, Regex: true, LimitApp: "evil", Strategy: authority.Black})
		r := paramflow.NewRule(p, 0, 1e12)
		r.Regex = true
		pr = append(pr, r)
	}
	for _, err := range []error{flow.LoadRules(fr), degrade.LoadRules(dr), authority.LoadRules(ar), paramflow.LoadRules(pr)} {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() {
		_ = flow.LoadRules(nil)
		_ = degrade.LoadRules(nil)
		_ = authority.LoadRules(nil)
		_ = paramflow.LoadRules(nil)
	})
}

// widePatterns are the most costly set to match that the caps allow:
// eight patterns (ruleutil.MaxRegexAutomata), each needing an automaton
// of its own (.*c.{10} remembers which of the last 11 runes were c), that
// no name ever leaves.
func widePatterns() []string {
	ps := make([]string, 8)
	for i := range ps {
		ps[i] = `.*` + string(rune('a'+i)) + `.{10}`
	}
	return ps
}

// BenchmarkBindNewNameWidestRegexRules binds a 4 KiB name no rule matches
// under widePatterns in flow, degrade, authority and hot-parameter rules:
// each iteration changes the rules' generation, so the call binds the
// name's chain again, as a new name's first call does.
func BenchmarkBindNewNameWidestRegexRules(b *testing.B) {
	loadRegexRules(b, widePatterns())
	name := strings.Repeat("/abcdefghijklmnopqrstuvwxyz", 160)[:4096-11] + strings.Repeat("/", 11)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		runtime.RulesChanged()
		e, blk := runtime.Entry(ctx, name, runtime.WithArgs(1))
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

// ordinaryPatterns are twenty patterns of the kind services write.
func ordinaryPatterns() []string {
	ps := make([]string, 20)
	for i := range ps {
		ps[i] = fmt.Sprintf(`GET:/api/v%d/(users|orders)/[0-9]+(/.*)?`, i)
	}
	return ps
}

var fillOnce sync.Once

// fill enters names until the resource table is full.
func fill(b *testing.B) {
	fillOnce.Do(func() {
		for i := 0; ; i++ {
			name := fmt.Sprintf("bench-fill-%d", i)
			e, blk := runtime.Entry(context.Background(), name)
			if blk == nil {
				e.Exit()
			}
			if runtime.LookupResource(name) == nil {
				return
			}
		}
	})
}

func benchCall(b *testing.B, name string, overflow bool) {
	loadRegexRules(b, ordinaryPatterns())
	ctx := context.Background()
	e, blk := runtime.Entry(ctx, name)
	if blk != nil || e.Resource().Overflow() != overflow {
		b.Fatalf("%s: blocked %v, overflow %v", name, blk, e.Resource().Overflow())
	}
	e.Exit()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, name)
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

// BenchmarkKnownCall and BenchmarkOverflowCall call a name with a resource,
// and a name past runtime.MaxResources, under twenty ordinary regex rules
// in each of four kinds that neither name matches.
func BenchmarkKnownCall(b *testing.B) {
	e, _ := runtime.Entry(context.Background(), "GET:/static/app.js") // before the table fills
	e.Exit()
	fill(b)
	benchCall(b, "GET:/static/app.js", false)
}

func BenchmarkOverflowCall(b *testing.B) {
	fill(b)
	benchCall(b, "GET:/static/late.js", true)
}
