package hostiletest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// windowValues are what a hostile rule document may put in a field that
// shapes a window or a span: past stat.NewWindow's bounds (65,535 slots,
// buckets of 2^31-1 ms), past Java's int and Go's, negative and zero.
var windowValues = []string{
	"0", "-1", "1", "3", "65535", "65536", "2147483647", "2147483648", "4294967296",
	"9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e300", "0.5",
}

// decodeLoad decodes a rule document and loads it. A document that does
// not decode (a number past the field's type) is refused before any rule
// is made: that is reported as no error, since nothing reaches a window.
func decodeLoad[R any](data []byte, load func([]R) error) error {
	var rules []R
	if err := json.Unmarshal(data, &rules); err != nil {
		return nil
	}
	return load(rules)
}

// Every field of a rule document that shapes a window, given every
// hostile value, is either refused with the rule's index, the field and
// why, or accepted and then checks calls for a minute without a panic.
// No rule input reaches stat.NewWindow's panics.
func TestHostileWindowFieldsAreRefusedOrServed(t *testing.T) {
	clk := clocktest.Install(t)
	prev := runtime.Logger()
	runtime.SetLogger(slog.New(slog.DiscardHandler)) // blocks are logged at info
	t.Cleanup(func() { runtime.SetLogger(prev) })
	type kind struct {
		name   string
		fields []string
		// doc is a one-rule document on resource res, field set to v.
		doc  func(res, field, v string) string
		load func(data []byte) error
	}
	kinds := []kind{
		{
			name:   "flow",
			fields: []string{"warmUpPeriodSec", "maxQueueingTimeMs", "clusterConfig.sampleCount", "clusterConfig.windowIntervalMs", "count"},
			doc: func(res, field, v string) string {
				if f, ok := strings.CutPrefix(field, "clusterConfig."); ok {
					return fmt.Sprintf(`[{"resource":%q,"grade":1,"count":5,"clusterMode":true,"clusterConfig":{"flowId":1,"fallbackToLocalWhenFail":true,%q:%s}}]`, res, f, v)
				}
				behavior := 1
				if field == "maxQueueingTimeMs" {
					behavior = 3
				}
				return fmt.Sprintf(`[{"resource":%q,"grade":1,"count":5,"controlBehavior":%d,%q:%s}]`, res, behavior, field, v)
			},
			load: func(data []byte) error { return decodeLoad(data, flow.LoadRules) },
		},
		{
			name:   "degrade",
			fields: []string{"statIntervalMs", "timeWindow", "minRequestAmount", "count"},
			doc: func(res, field, v string) string {
				return fmt.Sprintf(`[{"resource":%q,"grade":2,"count":1,"timeWindow":1,%q:%s}]`, res, field, v)
			},
			load: func(data []byte) error { return decodeLoad(data, degrade.LoadRules) },
		},
		{
			name:   "paramflow",
			fields: []string{"durationInSec", "burstCount", "maxQueueingTimeMs", "clusterConfig.sampleCount", "clusterConfig.windowIntervalMs", "count"},
			doc: func(res, field, v string) string {
				if f, ok := strings.CutPrefix(field, "clusterConfig."); ok {
					return fmt.Sprintf(`[{"resource":%q,"grade":1,"paramIdx":0,"count":5,"clusterMode":true,"clusterConfig":{"flowId":1,"fallbackToLocalWhenFail":true,%q:%s}}]`, res, f, v)
				}
				behavior := 0
				if field == "maxQueueingTimeMs" {
					behavior = 2
				}
				return fmt.Sprintf(`[{"resource":%q,"grade":1,"paramIdx":0,"count":5,"controlBehavior":%d,%q:%s}]`, res, behavior, field, v)
			},
			load: func(data []byte) error { return decodeLoad(data, paramflow.LoadRules) },
		},
		{
			name:   "adaptive",
			fields: []string{"sampleIntervalMs", "probeIntervalMs", "minSamples", "probeSamples", "maxQueueingTimeMs"},
			doc: func(res, field, v string) string {
				return fmt.Sprintf(`[{"resource":%q,%q:%s}]`, res, field, v)
			},
			load: func(data []byte) error { return decodeLoad(data, adaptive.LoadRules) },
		},
	}
	t.Cleanup(func() {
		_ = flow.LoadRules(nil)
		_ = degrade.LoadRules(nil)
		_ = paramflow.LoadRules(nil)
		_ = adaptive.LoadRules(nil)
	})
	for _, k := range kinds {
		refused, served := 0, 0
		for _, field := range k.fields {
			for _, v := range windowValues {
				res := fmt.Sprintf("hostile.window.%s.%s.%s", k.name, field, v)
				err := k.load([]byte(k.doc(res, field, v)))
				if err != nil {
					var errs runtime.RuleErrors
					require.True(t, errors.As(err, &errs), "%s %s=%s: %v", k.name, field, v, err)
					require.NotEmpty(t, errs)
					require.Equal(t, 0, errs[0].Index, "%s %s=%s", k.name, field, v)
					require.NotEmpty(t, errs[0].Reason, "%s %s=%s", k.name, field, v)
					if strings.HasPrefix(field, "clusterConfig.") {
						// sampleCount and windowIntervalMs are checked together.
						require.True(t, strings.HasPrefix(errs[0].Field, "clusterConfig."), "%s %s=%s: %v", k.name, field, v, err)
					} else {
						require.Equal(t, field, errs[0].Field, "%s %s=%s: %v", k.name, field, v, err)
					}
					refused++
					continue
				}
				served++
				for range 3 {
					for range 4 {
						if e, b := runtime.Entry(context.Background(), res, runtime.WithArgs("k")); b == nil {
							e.Exit()
						}
					}
					clk.Advance(20 * time.Second)
				}
			}
		}
		require.Positive(t, refused, k.name)
		require.Positive(t, served, k.name)
	}
}
