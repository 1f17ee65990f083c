//go:build sentinelgolang

package compare

import (
	"testing"

	sentinel "github.com/alibaba/sentinel-golang/api"
	"github.com/alibaba/sentinel-golang/core/base"
	"github.com/alibaba/sentinel-golang/core/circuitbreaker"
	"github.com/alibaba/sentinel-golang/core/config"
	sgflow "github.com/alibaba/sentinel-golang/core/flow"
)

// theirs is alibaba/sentinel-golang, initialised with its default
// configuration but without its metric log.
var theirs = protector{
	name: "theirs",
	admitting: func(tb testing.TB, resources ...string) {
		cr := make([]*circuitbreaker.Rule, len(resources))
		for i, r := range resources {
			// A slow-call breaker whose slow is an hour: closed for good.
			cr[i] = &circuitbreaker.Rule{Resource: r, Strategy: circuitbreaker.SlowRequestRatio,
				RetryTimeoutMs: 10_000, MinRequestAmount: 1, StatIntervalMs: 1000,
				MaxAllowedRtMs: 3_600_000, Threshold: 1}
		}
		loadTheirs(tb, theirFlow(resources, 1e12), cr)
	},
	admittingFlow: func(tb testing.TB, resources ...string) { loadTheirs(tb, theirFlow(resources, 1e12), nil) },
	refusing:      func(tb testing.TB, resources ...string) { loadTheirs(tb, theirFlow(resources, 0), nil) },
	enter: func(resource string) func() bool {
		return func() bool {
			e, b := sentinel.Entry(resource, sentinel.WithTrafficType(base.Inbound))
			if b != nil {
				return false
			}
			e.Exit()
			return true
		}
	},
}

func init() {
	conf := config.NewDefaultConfig()
	conf.Sentinel.Log.Metric.FlushIntervalSec = 0 // no metric log files
	conf.Sentinel.Log.Dir = "/tmp/sentinel-golang-compare-logs"
	if err := sentinel.InitWithConfig(conf); err != nil {
		panic(err)
	}
	protectors = append(protectors, theirs)
}

// theirFlow is a Direct Reject flow rule of threshold on each resource.
func theirFlow(resources []string, threshold float64) []*sgflow.Rule {
	fr := make([]*sgflow.Rule, len(resources))
	for i, r := range resources {
		fr[i] = &sgflow.Rule{Resource: r, TokenCalculateStrategy: sgflow.Direct,
			ControlBehavior: sgflow.Reject, Threshold: threshold, StatIntervalInMs: 1000}
	}
	return fr
}

func loadTheirs(tb testing.TB, fr []*sgflow.Rule, cr []*circuitbreaker.Rule) {
	tb.Helper()
	if _, err := sgflow.LoadRules(fr); err != nil {
		tb.Fatal(err)
	}
	if _, err := circuitbreaker.LoadRules(cr); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_, _ = sgflow.LoadRules(nil)
		_, _ = circuitbreaker.LoadRules(nil)
	})
}
