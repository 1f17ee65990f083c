package paramflow_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// Java's ParamFlowRuleUtil.isValidRule accepts any controlBehavior >= 0,
// and ParamFlowChecker.passSingleValueCheck runs the throttling checker
// for 2 only: every other code, warm-up (1) included, is the token bucket.
func TestWarmUpBehaviorLoadsAsTheTokenBucket(t *testing.T) {
	for _, code := range []int{1, 3, 9} {
		t.Run(fmt.Sprint("controlBehavior ", code), func(t *testing.T) { warmUpBehavior(t, code) })
	}
}

func warmUpBehavior(t *testing.T, code int) {
	var r paramflow.Rule
	doc := fmt.Sprintf(`{"resource":"pf-java-behavior","paramIdx":0,"grade":1,"count":2,"controlBehavior":%d}`, code)
	require.NoError(t, json.Unmarshal([]byte(doc), &r), doc)
	require.NoError(t, paramflow.ValidateRules([]paramflow.Rule{r}), "Java accepts controlBehavior %d", code)
	lint := paramflow.LintRules([]paramflow.Rule{r})
	require.Len(t, lint, 1)
	assert.Equal(t, "controlBehavior", lint[0].Field)
	assert.Contains(t, lint[0].Reason, "Java loads the rule and limits with the token bucket, as 0 does")

	c := load(t, r)
	assert.Equal(t, 2, run(5, "pf-java-behavior", "v"), "count 2 per second per value, at once: no warm-up, no queueing")
	c.Advance(1002 * time.Millisecond) // Java's tests step past the second too
	assert.Equal(t, 2, run(5, "pf-java-behavior", "v"), "the bucket refills after durationInSec")
}

func TestRulesJavaRejectsStayRefused(t *testing.T) {
	refused := []paramflow.Rule{
		{Resource: "a", Grade: paramflow.GradeQPS, ParamIdx: paramflow.Index(0), ControlBehavior: -1},
		{Resource: "a.*", Regex: true, Grade: paramflow.GradeQPS, ParamIdx: paramflow.Index(0), ControlBehavior: 1},
	}
	for _, r := range refused {
		assert.Error(t, paramflow.ValidateRules([]paramflow.Rule{r}), "%+v", r)
	}
	assert.Empty(t, paramflow.LintRules([]paramflow.Rule{paramflow.NewRule("a", 0, 1)}))
}
