package inforce_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/inforce"
)

func TestKindsAreNamedAsDataSourcesNameThem(t *testing.T) {
	var names []string
	for _, k := range inforce.Kinds() {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"authority", "system", "paramFlow", "flow", "degrade"}, names)
}

func TestKindOfReportsTheRulesInForce(t *testing.T) {
	defer flow.LoadRules(nil)
	k := inforce.KindOf("flow", flow.Rules)
	js, err := json.Marshal(k.Rules())
	require.NoError(t, err)
	assert.JSONEq(t, `[]`, string(js), "no rules is [], not null")
	assert.Equal(t, 0, k.Count())

	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "inforce.a", Grade: flow.GradeQPS, Count: 1}}))
	assert.Equal(t, 1, k.Count())
	rules, ok := k.Rules().([]flow.Rule)
	require.True(t, ok)
	assert.Equal(t, "inforce.a", rules[0].Resource)
}
