package runtime_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRuleErrorsNameIndexResourceFieldAndReason(t *testing.T) {
	errs := runtime.RuleErrors{
		{Index: 2, Resource: "getOrder", Field: "controlBehavior", Reason: "7 is not one of 0..3"},
		{Index: 4, Reason: "resource is blank"},
	}
	assert.Equal(t, "rule 2 (resource \"getOrder\"): controlBehavior 7 is not one of 0..3\nrule 4: resource is blank", errs.Error())
	var re *runtime.RuleError
	require.True(t, errors.As(error(errs), &re))
	assert.Equal(t, 2, re.Index)
}

func TestPropertyLoadsAllOrNothingAndTellsListeners(t *testing.T) {
	var loaded []int
	p := runtime.NewProperty(func(v []int) error {
		for _, x := range v {
			if x < 0 {
				return errors.New("negative")
			}
		}
		loaded = v
		return nil
	})
	var seen [][]int
	cancel := p.Listen(func(v []int) { seen = append(seen, v) })

	require.NoError(t, p.Update([]int{1, 2}))
	require.Error(t, p.Update([]int{3, -1}))
	assert.Equal(t, []int{1, 2}, p.Value(), "a refused value is not kept")
	assert.Equal(t, []int{1, 2}, loaded)
	assert.Equal(t, [][]int{{1, 2}}, seen, "listeners hear only loaded values")

	cancel()
	require.NoError(t, p.Update([]int{5}))
	assert.Len(t, seen, 1, "a cancelled listener hears nothing more")
}

func TestRuleErrorCutsALongResourceSoTheFieldAndReasonFit(t *testing.T) {
	resource := strings.Repeat("é", 2000) // 4000 bytes, the cut on a rune boundary
	e := &runtime.RuleError{Index: 3, Resource: resource, Field: "resource", Reason: "is refused"}
	msg := e.Error()
	assert.Less(t, len(msg), 200)
	assert.True(t, utf8.ValidString(msg))
	assert.Equal(t, `rule 3 (resource "`+strings.Repeat("é", 60)+`"…(4000 bytes)): resource is refused`, msg)
}
