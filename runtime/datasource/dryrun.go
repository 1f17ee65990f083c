package datasource

import (
	"encoding/json"
	"sort"
)

// dryRunNote is what `sentinelgen rules check` says of a dry-run rule.
const dryRunNote = "dry run: admits every call, counting those it would block; Java Sentinel ignores dryRun and would enforce this rule"

// dryRunNotes reports each rule with "dryRun": true, in document order
// within each kind (kinds sorted, as checkResources orders them).
func dryRunNotes(name string, kind Kind, rs RuleSet) []Problem {
	_, combined := kind.(*combinedKind)
	raw := rs.raw()
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Problem
	for _, k := range keys {
		section := ""
		if combined {
			section = k
		}
		for i, el := range raw[k] {
			var r struct {
				Resource any  `json:"resource"`
				DryRun   bool `json:"dryRun"`
			}
			if json.Unmarshal(el, &r) != nil || !r.DryRun {
				continue
			}
			res, _ := r.Resource.(string)
			out = append(out, Problem{File: name, Section: section, Rule: i, Resource: res, Severity: SeverityNote, Message: dryRunNote})
		}
	}
	return out
}
