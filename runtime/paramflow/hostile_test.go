package paramflow_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// Argument values come from callers. An attacker sends long, distinct
// values: the state kept for them is bounded in bytes, not only in number.
func TestLongValuesAreBoundedInBytes(t *testing.T) {
	load(t, paramflow.NewRule("pf-long", 0, 1))
	long := strings.Repeat("v", 256<<10)
	for i := range 300 {
		passes("pf-long", fmt.Sprintf("%s-%d", long, i))
	}
	held := paramflow.KeyBytesHeld(0, "pf-long")
	assert.LessOrEqual(t, held, 300*128, "each value keeps at most 128 bytes, whatever its length")
	assert.Equal(t, 300, paramflow.ValuesHeld(0, "pf-long"), "distinct long values stay distinct")

	v := long + "-0"
	assert.False(t, passes("pf-long", v), "a long value still has its own bucket")
	assert.True(t, passes("pf-long", long+"-x"), "and another long value with the same start has its own")
}

func TestLongItemValuesMatchLongArguments(t *testing.T) {
	long := strings.Repeat("i", 1000)
	r := paramflow.NewRule("pf-long-item", 0, 0)
	r.ParamFlowItemList = []paramflow.Item{{Object: long, ClassType: "String", Count: 2}}
	load(t, r)
	assert.Equal(t, 2, run(5, "pf-long-item", long), "the item's count applies to the long value")
	assert.Equal(t, 0, run(5, "pf-long-item", long+"x"))
}

// One call whose argument was a 10,000-value slice evicted the values a
// rule was counting: value 42 had used its 5/s, then passed 5 more in the
// same second. A list of more than MaxValuesPerCall values is now refused
// whole, before any of its values is looked at or kept.
func TestOversizedListCannotFlushCountedValues(t *testing.T) {
	load(t, paramflow.NewRule("pf-flush", 0, 5))
	assert.Equal(t, 5, run(10, "pf-flush", 42), "42 uses its 5/s")

	flood := make([]int, 10_000)
	for i := range flood {
		flood[i] = 1000 + i
	}
	_, b := call("pf-flush", flood)
	require.NotNil(t, b, "a list over the cap is refused")
	assert.Equal(t, runtime.BlockParamFlow, b.BlockType())
	assert.Equal(t, 1, paramflow.ValuesHeld(0, "pf-flush"), "none of its values was kept")
	assert.Equal(t, 0, run(5, "pf-flush", 42), "42 stays at its limit")

	// A list of more values hides 42 among them: refused too, so 42 does
	// not ride past its limit behind values that are not checked.
	hidden := append(append([]int{}, flood[:paramflow.MaxValuesPerCall]...), 42)
	_, b = call("pf-flush", hidden)
	require.NotNil(t, b)
	assert.Equal(t, 0, run(5, "pf-flush", 42))

	// Every list type, through reflection and Keyer too.
	for _, arg := range []any{make([]string, 101), make([]any, 101), make([]int64, 101), make([]uint16, 101), [101]int{}, keyed{v: make([]int, 101)}} {
		_, b := call("pf-flush", arg)
		assert.NotNil(t, b, "%T", arg)
	}
	assert.Equal(t, 1, paramflow.ValuesHeld(0, "pf-flush"))
}

type keyed struct{ v []int }

func (k keyed) ParamKey() any { return k.v }

// At the cap a list is checked value by value, as Java checks it, and a
// counted value among the others keeps its limit.
func TestListAtTheCapIsCheckedValueByValue(t *testing.T) {
	load(t, paramflow.NewRule("pf-cap", 0, 5))
	assert.Equal(t, 5, run(5, "pf-cap", 42))
	list := make([]int, paramflow.MaxValuesPerCall)
	for i := range list {
		list[i] = 1000 + i
	}
	assert.True(t, passes("pf-cap", list), "100 values, each within its limit")
	list[len(list)-1] = 42
	assert.False(t, passes("pf-cap", list), "42 is checked at the list's end")
	assert.Equal(t, paramflow.MaxValuesPerCall+1, paramflow.ValuesHeld(0, "pf-cap"))
}

// A thread-grade rule refuses an oversized list without holding any of
// its values; a dry-run rule lets it through, counts a would-be block and
// gives back nothing at exit.
func TestOversizedListThreadGradeAndDryRun(t *testing.T) {
	r := paramflow.NewRule("pf-cap-thread", 0, 1)
	r.Grade = paramflow.GradeThread
	dry := paramflow.NewRule("pf-cap-dry", 0, 1)
	dry.Grade = paramflow.GradeThread
	dry.DryRun = true
	load(t, r, dry)
	big := make([]int, paramflow.MaxValuesPerCall+1)
	_, b := call("pf-cap-thread", big)
	require.NotNil(t, b)
	assert.True(t, passes("pf-cap-thread", 0), "the refused call holds no thread count")

	e, b := call("pf-cap-dry", big)
	require.Nil(t, b, "dry run admits")
	e.Exit()
	res := runtime.LookupResource("pf-cap-dry")
	assert.EqualValues(t, 1, res.DryRunBlockCount(runtime.BlockParamFlow))
	assert.Equal(t, 0, paramflow.ValuesHeld(1, "pf-cap-dry"))
}
