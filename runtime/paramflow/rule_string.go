package paramflow

import (
	"fmt"
	"strings"
)

// String describes the rule for logs, such as the block log's lines.
func (r *Rule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "param flow rule {resource %q", r.Resource)
	if r.Regex {
		b.WriteString(" (regex)")
	}
	if r.ParamIdx != nil {
		fmt.Fprintf(&b, ", paramIdx %d", *r.ParamIdx)
	} else {
		b.WriteString(", paramIdx unset")
	}
	fmt.Fprintf(&b, ", grade %s, count %v", r.Grade, r.Count)
	if r.Grade == GradeQPS {
		fmt.Fprintf(&b, " per %d s, controlBehavior %s", max(r.DurationInSec, 1), r.ControlBehavior)
		if r.BurstCount > 0 {
			fmt.Fprintf(&b, ", burst %d", r.BurstCount)
		}
	}
	for _, it := range r.ParamFlowItemList {
		fmt.Fprintf(&b, ", item %q count %d", it.Object, it.Count)
	}
	if r.ClusterMode {
		b.WriteString(", cluster")
	}
	b.WriteString("}")
	return b.String()
}
