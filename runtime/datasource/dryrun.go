package datasource

import "encoding/json"

// dryRunNote is what `sentinelgen rules check` says of a dry-run rule.
const dryRunNote = "dry run: admits every call, counting those it would block; Java Sentinel ignores dryRun and would enforce this rule"

// adaptiveDryRunNote is the note for a kind Java Sentinel does not have.
const adaptiveDryRunNote = "dry run: admits every call, counting those it would block (Java Sentinel has no adaptive rule)"

// dryRunNotes reports each rule with "dryRun": true, in document order
// within each kind (kinds sorted, as checkResources orders them).
func dryRunNotes(name string, kind Kind, rs RuleSet) []Problem {
	var out []Problem
	eachRawRule(kind, rs, func(section string, i int, el json.RawMessage) {
		var r struct {
			Resource any  `json:"resource"`
			DryRun   bool `json:"dryRun"`
		}
		if json.Unmarshal(el, &r) != nil || !r.DryRun {
			return
		}
		res, _ := r.Resource.(string)
		note := dryRunNote
		if section == Adaptive.Name() || (section == "" && kind.Name() == Adaptive.Name()) {
			note = adaptiveDryRunNote
		}
		out = append(out, Problem{File: name, Section: section, Rule: i, Resource: res, Severity: SeverityNote, Message: note})
	})
	return out
}
