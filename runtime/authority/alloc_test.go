package authority_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/stretchr/testify/assert"
)

// An admitted call allocates its entry and nothing else.
func TestAdmittedCallsAllocateOnlyTheEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tests := []struct {
		name string
		rule authority.Rule
	}{
		{"short white list", authority.Rule{Resource: "alloc-white", LimitApp: "appB,appA"}},
		{"long white list", authority.Rule{Resource: "alloc-long", LimitApp: "a1,a2,a3,a4,a5,a6,a7,a8,a9,appA"}},
		{"black list", authority.Rule{Resource: "alloc-black", LimitApp: "appB", Strategy: authority.Black}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load(t, tt.rule)
			r := runtime.Declare(runtime.ResourceSpec{Name: tt.rule.Resource})
			ctx := runtime.EnterContext(context.Background(), "alloc", "appA")
			e, _ := r.Entry(ctx)
			e.Exit()
			allocs := testing.AllocsPerRun(200, func() {
				e, b := r.Entry(ctx)
				if b != nil {
					t.Fatal(b)
				}
				e.Exit()
			})
			assert.LessOrEqual(t, allocs, 1.0)
		})
	}
}

func TestRuleString(t *testing.T) {
	r := &authority.Rule{Resource: ".*", Regex: true, LimitApp: "appA", Strategy: authority.Black}
	assert.Equal(t, `authority rule {resource ".*" (regex), black list "appA"}`, r.String())
}
