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

// Java's ParamFlowRuleUtil.parseHotItems skips, with a warning, an item
// whose object does not parse as its classType, or that has no object or
// a count that is missing or negative; the rule loads and its own count
// applies to that value. Boolean.parseBoolean reads anything but "true"
// as false.
func TestItemsJavaSkipsAreSkippedWithAWarning(t *testing.T) {
	items := []paramflow.Item{
		{Object: "x1", ClassType: "int", Count: 1},
		{Object: "3000000000", ClassType: "int", Count: 1},
		{Object: "200", ClassType: "byte", Count: 1},
		{Object: "6", Count: -5},
		{Object: "", ClassType: "char", Count: 1},
		{Object: "1.2.3", ClassType: "double", Count: 1},
		{Object: "yes", ClassType: "boolean", Count: 0},
		{Object: "7", ClassType: "int", Count: 0},
	}
	r := paramflow.NewRule("pf-items", 0, 2)
	r.ParamFlowItemList = items
	require.NoError(t, paramflow.ValidateRules([]paramflow.Rule{r}))
	lint := paramflow.LintRules([]paramflow.Rule{r})
	require.Len(t, lint, 7)
	for j, e := range lint[:6] {
		assert.Equal(t, fmt.Sprintf("paramFlowItemList[%d]", j), e.Field)
		assert.Contains(t, e.Reason, "Java skips the item, so the rule's count applies to that value")
	}
	assert.Equal(t, "paramFlowItemList[6]", lint[6].Field)
	assert.Contains(t, lint[6].Reason, `object "yes" is not true or false; Java's Boolean.parseBoolean reads it as false`)

	load(t, r)
	assert.Equal(t, 2, run(5, "pf-items", 6), "a skipped item: the rule's count")
	assert.Equal(t, 0, run(5, "pf-items", 7), "a parsed item: its own count")
	assert.Equal(t, 0, run(5, "pf-items", false), `"yes" is Java's false, with count 0`)
	assert.Equal(t, 2, run(5, "pf-items", true))
}

// isValidRule accepts any grade >= 0; passSingleValueCheck passes every
// call of a grade that is neither QPS nor thread.
func TestUnknownGradePassesEveryCall(t *testing.T) {
	var r paramflow.Rule
	require.NoError(t, json.Unmarshal([]byte(`{"resource":"pf-grade","paramIdx":0,"grade":2,"count":0}`), &r))
	require.NoError(t, paramflow.ValidateRules([]paramflow.Rule{r}))
	lint := paramflow.LintRules([]paramflow.Rule{r})
	require.Len(t, lint, 1)
	assert.Equal(t, "grade", lint[0].Field)
	assert.Contains(t, lint[0].Reason, "Java loads the rule and it passes every call")
	load(t, r)
	assert.Equal(t, 5, run(5, "pf-grade", "v"))
	assert.Error(t, paramflow.ValidateRules([]paramflow.Rule{{Resource: "a", ParamIdx: paramflow.Index(0), Grade: -1}}))
}
