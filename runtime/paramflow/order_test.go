package paramflow_test

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Java Sentinel checks a resource's hot-parameter rules in its HashSet's
// order, unsorted. Run on Sentinel 1.8.9 and OpenJDK 17:
// ParamFlowRule.hashCode puts rule 1 (hash 1493730436) in bin 12 and rule
// 0 (226362339) in bin 13, so rule 1 is checked first whichever way they
// are loaded, and its count of 0.5 ((long) 0 tokens) refuses the value
// "a" at once: the BlockError names rule 1, as Java's ParamFlowException
// does. Load order [0, 1] checked rule 0 first, which refused the call
// itself (throttling with count 0).
func TestHotParameterRulesAreCheckedInJavasOrderWhateverTheLoadOrder(t *testing.T) {
	r0 := paramflow.NewRule("r1", 0, 0)
	r0.BurstCount, r0.ControlBehavior, r0.MaxQueueingTimeMs = 1, paramflow.BehaviorRateLimiter, 0
	r1 := paramflow.NewRule("r1", 1, 0.5)
	r1.ControlBehavior, r1.MaxQueueingTimeMs = 1, 2000
	r1.ParamFlowItemList = []paramflow.Item{{Object: "1", ClassType: "java.lang.String", Count: 2}}
	for name, rules := range map[string][]paramflow.Rule{"load [0, 1]": {r0, r1}, "load [1, 0]": {r1, r0}} {
		t.Run(name, func(t *testing.T) {
			clk := load(t, rules...)
			start := clk.Now()
			_, b := call("r1", 1, "a")
			require.NotNil(t, b, "Java: BLOCK")
			assert.Equal(t, 1, *b.Rule().(*paramflow.Rule).ParamIdx, "Java: by rule 1")
			assert.Equal(t, "a", b.TriggeredValue())
			assert.Equal(t, start, clk.Now(), "refused at once")
		})
	}
}
