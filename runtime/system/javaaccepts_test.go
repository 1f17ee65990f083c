package system_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// Java's SystemRuleManager.loadSystemConf ignores a highestCpuUsage above 1
// ("Ignoring invalid SystemRule") and keeps the rule's other thresholds;
// Java's SystemRuleManagerTest loads cpu 2.7 and reports no rule.
func TestCPUAboveOneIsIgnoredAsJavaIgnoresIt(t *testing.T) {
	setup(t)
	rules := []system.Rule{rule(func(r *system.Rule) { r.HighestCPUUsage = 2.7; r.QPS = 5 })}
	require.NoError(t, system.LoadRules(rules))
	in := system.InForce()
	assert.Equal(t, -1.0, in.HighestCPUUsage, "the CPU threshold is not set")
	assert.Equal(t, 5.0, in.QPS, "the rest of the rule is")
	lint := system.LintRules(rules)
	require.Len(t, lint, 1)
	assert.Equal(t, "highestCpuUsage", lint[0].Field)
	assert.Contains(t, lint[0].Reason, "Java ignores it")
}
