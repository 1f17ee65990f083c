package datasource

import (
	"encoding/json"
)

// blockAllWarnings warns, for rules check, on each enforcing rule whose
// threshold blocks every call: a flow or hot-parameter rule with count 0
// (written out, or left out: Java's default), a system rule with qps 0.
// Such a rule is valid and loads, as in Java, and may be meant (a switch
// that closes a resource); but it is the most drastic rule there is, and
// the one a slip of the keyboard most often makes, so a check says so.
func blockAllWarnings(name string, kind Kind, rs RuleSet) []Problem {
	var out []Problem
	eachRawRule(kind, rs, func(section string, i int, el json.RawMessage) {
		k := kind // the built-in kinds only: a kind of one's own has its own thresholds
		if c, ok := kind.(*combinedKind); ok {
			k = c.find(section)
		}
		var r struct {
			Resource any      `json:"resource"`
			Count    *float64 `json:"count"`
			QPS      *float64 `json:"qps"`
			DryRun   bool     `json:"dryRun"`
		}
		if json.Unmarshal(el, &r) != nil || r.DryRun {
			return
		}
		res, _ := r.Resource.(string)
		p := Problem{File: name, Section: section, Rule: i, Resource: res, Severity: SeverityWarning}
		switch {
		case (k == Flow || k == ParamFlow) && (r.Count == nil || *r.Count == 0):
			p.Field = "count"
			p.Message = "is 0: the rule blocks every call"
			if r.Count == nil {
				p.Message = "is not set, so it is 0: the rule blocks every call"
			}
			if k == ParamFlow {
				p.Message += " that has the argument (values in paramFlowItemList have their own count)"
			}
		case k == System && r.QPS != nil && *r.QPS == 0:
			p.Field = "qps"
			p.Message = "is 0: the rule blocks every inbound call"
		default:
			return
		}
		p.Message += `; fine if meant (a switch that closes the resource), else set the threshold, or add "dryRun": true to see what it would block`
		out = append(out, p)
	})
	return out
}
