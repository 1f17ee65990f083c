package datasource_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Editing one section of a combined document reloads every other section
// unchanged. An unchanged rule stays the same rule: its blocks of a second
// are one block-log line, however many reloads came in between; and its
// BlockError.Rule is the same value.
func TestReloadingUnchangedRulesStartsNoNewBlockLogLine(t *testing.T) {
	clk := clocktest.Install(t)
	clk.Advance(time.Duration(1000-clk.Millis()%1000)*time.Millisecond + 100*time.Millisecond) // early in a second
	inbound := []runtime.EntryOption{runtime.WithTrafficType(runtime.Inbound)}
	kinds := []struct {
		section, rules string
		call           func() *runtime.BlockError
	}{
		{"flow", `[{"resource":"reload.flow","count":0}]`, func() *runtime.BlockError {
			return enter(context.Background(), "reload.flow")
		}},
		{"degrade", `[{"resource":"reload.degrade","grade":2,"count":1,"timeWindow":60,"minRequestAmount":1}]`, func() *runtime.BlockError {
			return enter(context.Background(), "reload.degrade")
		}},
		{"system", `[{"qps":0}]`, func() *runtime.BlockError {
			return enter(context.Background(), "reload.system", inbound...)
		}},
		{"authority", `[{"resource":"reload.authority","limitApp":"bad","strategy":1}]`, func() *runtime.BlockError {
			return enter(runtime.EnterContext(context.Background(), "reload", "bad"), "reload.authority")
		}},
		{"paramFlow", `[{"resource":"reload.param","paramIdx":0,"count":0}]`, func() *runtime.BlockError {
			return enter(context.Background(), "reload.param", runtime.WithArgs("x"))
		}},
		{"adaptive", `[{"resource":"reload.adaptive","minLimit":1,"maxLimit":1,"initialLimit":1}]`, func() *runtime.BlockError {
			return enter(context.Background(), "reload.adaptive") // one call holds the one slot
		}},
	}
	for _, k := range kinds {
		t.Run(k.section, func(t *testing.T) {
			t.Cleanup(func() {
				_, _ = datasource.Load("clear", []byte(`{"flow":[],"degrade":[],"system":[],"authority":[],"paramFlow":[],"adaptive":[]}`), datasource.Combined)
			})
			other := "authority"
			if k.section == other {
				other = "flow"
			}
			doc := func(n int) []byte {
				// the other section changes every time: a resource of its own
				edit := fmt.Sprintf(`[{"resource":"reload.other%d","limitApp":"x"}]`, n)
				if other == "flow" {
					edit = fmt.Sprintf(`[{"resource":"reload.other%d","count":%d}]`, n, n)
				}
				return fmt.Appendf(nil, `{%q:%s,%q:%s}`, k.section, k.rules, other, edit)
			}
			_, err := datasource.Load("rules.json", doc(0), datasource.Combined)
			require.NoError(t, err)
			if k.section == "degrade" { // open the breaker: errors past the count
				for range 3 {
					if e, b := runtime.Entry(context.Background(), "reload.degrade"); b == nil {
						e.Exit(runtime.WithError(errors.New("boom")))
					}
				}
			}
			if k.section == "adaptive" {
				held, b := runtime.Entry(context.Background(), "reload.adaptive")
				require.Nil(t, b)
				t.Cleanup(func() { held.Exit() })
			}
			runtime.FlushBlockLog()
			logs := logtest.Capture(t)
			first := k.call()
			require.NotNil(t, first)
			for n := 1; n <= 5; n++ {
				_, err := datasource.Load("rules.json", doc(n), datasource.Combined)
				require.NoError(t, err)
				b := k.call()
				require.NotNil(t, b, "reload %d", n)
				assert.Same(t, first.Rule(), b.Rule(), "the same rule after reload %d", n)
			}
			runtime.FlushBlockLog()
			lines := logs.Lines(`msg="sentinel: blocked"`)
			require.Len(t, lines, 1, "one line per resource, rule and origin a second: %q", lines)
			assert.Contains(t, lines[0], "blocks=6")
		})
	}
}

func enter(ctx context.Context, resource string, opts ...runtime.EntryOption) *runtime.BlockError {
	e, b := runtime.Entry(ctx, resource, opts...)
	if b == nil {
		e.Exit()
	}
	return b
}
