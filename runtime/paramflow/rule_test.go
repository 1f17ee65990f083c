package paramflow

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRuleString(t *testing.T) {
	idx := 0
	r := &Rule{Resource: "listOrders", ParamIdx: &idx, Grade: GradeQPS, Count: 5, DurationInSec: 1,
		ParamFlowItemList: []Item{{Object: "vip", ClassType: "java.lang.String", Count: 100}}}
	assert.Equal(t, `param flow rule {resource "listOrders", paramIdx 0, grade QPS, count 5 per 1 s, controlBehavior default, item "vip" count 100}`, r.String())
	assert.Equal(t, `param flow rule {resource "x", paramIdx unset, grade thread, count 2}`, (&Rule{Resource: "x", Grade: GradeThread, Count: 2}).String())
}
