package paramflow_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
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
