package paramflow_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

func TestRegexRuleCannotEscapeItsAnchors(t *testing.T) {
	defer func() { require.NoError(t, paramflow.LoadRules(nil)) }()
	err := paramflow.LoadRules([]paramflow.Rule{{Resource: "getOrder)|(.*", Regex: true, Grade: paramflow.GradeQPS, ParamIdx: paramflow.Index(0), Count: 0, DurationInSec: 1}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a valid regular expression")
}

func TestRegexRulesCompileOnceWithinCaps(t *testing.T) {
	defer func() { require.NoError(t, paramflow.LoadRules(nil)) }()
	before := ruleutil.RegexCompilations()
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{
		{Resource: `pf\.once\..*`, Regex: true, Grade: paramflow.GradeQPS, ParamIdx: paramflow.Index(0), Count: 1, DurationInSec: 1},
	}))
	assert.EqualValues(t, 1, ruleutil.RegexCompilations()-before, "compiled once for validation and rules")

	rules := make([]paramflow.Rule, 300)
	for i := range rules {
		rules[i] = paramflow.Rule{Resource: strings.Repeat(`\w{1000}`, 4) + strings.Repeat("x", i), Regex: true,
			Grade: paramflow.GradeQPS, ParamIdx: paramflow.Index(0), Count: 1, DurationInSec: 1}
	}
	before = ruleutil.RegexCompilations()
	err := paramflow.LoadRules(rules)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "instructions in all")
	assert.Less(t, ruleutil.RegexCompilations()-before, int64(30))
}
