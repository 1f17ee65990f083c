package authority_test

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A dry-run authority rule admits every caller and counts the calls the
// enforcing rule refuses.
func TestDryRunAuthorityCountsTheEnforcingRulesBlocks(t *testing.T) {
	load(t,
		authority.Rule{Resource: "auth-dry-enf", LimitApp: "appA, appB", Strategy: authority.White},
		authority.Rule{Resource: "auth-dry-dry", LimitApp: "appA, appB", Strategy: authority.White, DryRun: true},
		authority.Rule{Resource: "auth-dry-black", LimitApp: "appC", Strategy: authority.Black, DryRun: true})
	var blocks int64
	origins := []string{"appA", "appC", "appB", "", "appD", "appC", "appA"}
	for _, o := range origins {
		if enter("auth-dry-enf", o) != nil {
			blocks++
		}
		require.Nil(t, enter("auth-dry-dry", o), "origin %q: the dry run admits it", o)
		require.Nil(t, enter("auth-dry-black", o), "origin %q", o)
	}
	dry := runtime.LookupResource("auth-dry-dry")
	assert.EqualValues(t, 3, blocks, "appC twice and appD")
	assert.Equal(t, blocks, dry.DryRunBlockCount(runtime.BlockAuthority))
	assert.Zero(t, dry.BlockCount(runtime.BlockAuthority))
	assert.EqualValues(t, 2, runtime.LookupResource("auth-dry-black").DryRunBlockCount(runtime.BlockAuthority))
}

// A dry-run rule that refuses the call lets the next rule decide.
func TestDryRunAuthorityRuleLetsTheNextRuleDecide(t *testing.T) {
	load(t,
		authority.Rule{Resource: "auth-dry-both", LimitApp: "appA", Strategy: authority.White, DryRun: true},
		authority.Rule{Resource: "auth-dry-.*", Regex: true, LimitApp: "appB", Strategy: authority.Black})
	assert.Nil(t, enter("auth-dry-both", "appC"))
	b := enter("auth-dry-both", "appB")
	require.NotNil(t, b, "the enforcing regex rule refuses appB")
	assert.Equal(t, runtime.BlockAuthority, b.BlockType())
	assert.EqualValues(t, 2, runtime.LookupResource("auth-dry-both").DryRunBlockCount(runtime.BlockAuthority))
}
