package paramflow_test

import (
	"slices"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Java's ParamFlowChecker.passSingleValueCheck checks every element of a
// list argument against the thread counts from before the call
// (threadCount + 1 <= threshold), and ParameterMetric.addThreadCount then
// counts each element once: [a, a] passes a threshold of 1 and holds a
// twice until it exits.
func TestThreadGradeRepeatedValuesReadCountsFromBeforeTheCall(t *testing.T) {
	r := paramflow.NewRule("pf-repeat", 0, 1)
	r.Grade = paramflow.GradeThread
	load(t, r)

	e, b := call("pf-repeat", []string{"a", "a"})
	require.Nil(t, b, "each a checks 0 + 1 <= 1")
	assert.False(t, passes("pf-repeat", "a"), "a is held twice")
	assert.False(t, passes("pf-repeat", []string{"a"}))
	e.Exit()
	assert.True(t, passes("pf-repeat", "a"), "both counts were given back")

	// A refusal gives back the repeats taken before it.
	hold, b := call("pf-repeat", "busy")
	require.Nil(t, b)
	assert.False(t, passes("pf-repeat", []string{"x", "x", "busy"}))
	assert.True(t, passes("pf-repeat", "x"))
	hold.Exit()
}

// Long lists are counted the same way (with a map instead of a scan).
func TestThreadGradeRepeatedValuesInALongList(t *testing.T) {
	r := paramflow.NewRule("pf-repeat-long", 0, 2)
	r.Grade = paramflow.GradeThread
	load(t, r)
	long := slices.Repeat([]int{7, 8}, 20)

	hold, b := call("pf-repeat-long", 7)
	require.Nil(t, b)
	e, b := call("pf-repeat-long", long)
	require.Nil(t, b, "7 checks 1 + 1 <= 2 for each of its 20 copies")
	assert.False(t, passes("pf-repeat-long", 7), "7 is held 21 times")
	assert.False(t, passes("pf-repeat-long", long))
	e.Exit()
	hold.Exit()
	assert.Equal(t, 2, countOpen(t, "pf-repeat-long", 3, 8))
}
