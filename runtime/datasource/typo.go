package datasource

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/sentinelgen/sentinelgen/internal/suggest"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// This file finds misspelt rule fields. Unknown fields are ignored, as
// Java ignores them, because the dashboard's exports carry fields no rule
// reads (id, app, ip, port, gmtCreate, ...). But "cout" for "count" leaves
// count at 0, which blocks every call, without a word: a field near a
// known field of its rule kind is a Warning with the field it probably
// means, and a refusal it causes (a required field left blank) names it.

// quietFields are the fields that Java's rule classes and the Sentinel
// dashboard's rule and metric entities export and that a rule kind here
// may not read: never a typo, whatever field they are near.
var quietFields = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range []string{
		// RuleEntity (FlowRuleEntity, DegradeRuleEntity, ...): the
		// dashboard's bookkeeping around a rule.
		"id", "app", "ip", "port", "gmtCreate", "gmtModified", "rule",
		// Java's AbstractRule fields, on every kind (SystemRule has them
		// and reads neither), and the cluster fields of flow rules.
		"resource", "limitApp", "regex", "clusterMode", "clusterConfig",
		// MetricEntity and what dashboards show beside rules.
		"passCount", "blockCount", "successCount", "exceptionCount", "passQps", "blockQps",
		"successQps", "exceptionQps", "rt", "count", "timestamp", "resourceCode",
		// ParamFlowRule's parsed items (a getter fastjson exports), a
		// gateway rule's paramItem.
		"hotItems", "parsedHotItems", "paramItem",
	} {
		m[f] = true // as written: the fast path's lookup, no lowering
		m[strings.ToLower(f)] = true
	}
	return m
}()

// typoLimit is how many edits from a known field of length n an unknown
// field is still a typo of it. Short fields are near many words: one of
// three letters (qps) is never guessed at; up to seven letters (count,
// grade, strategy's shorter kin) one edit; longer ones (refResource,
// controlBehavior) two. Every field the dashboard exports stays below
// these limits (see quietFields and the tests).
func typoLimit(n int) int {
	switch {
	case n <= 3:
		return 0
	case n <= 7:
		return 1
	}
	return 2
}

// nearField is the field of object schema s that the unknown member name
// probably means, or "". Case alone never makes a typo: encoding/json
// matches names in any case. Its cost is bounded whatever the name: only
// fields of a length within the limit are compared, names over
// maxTypoName bytes never are.
func (s *schema) nearField(name string) string {
	if len(name) > maxTypoName || quietFields[name] || quietFields[strings.ToLower(name)] {
		return ""
	}
	lower := strings.ToLower(name)
	best, bestD := "", -1
	for known := range s.fields {
		limit := typoLimit(len(known))
		if limit == 0 || len(lower) < len(known)-limit || len(lower) > len(known)+limit {
			continue // too short or too long to be within the limit
		}
		d := suggest.Distance(lower, strings.ToLower(known))
		if d > typoLimit(len(known)) {
			continue
		}
		if bestD < 0 || d < bestD || (d == bestD && known < best) {
			best, bestD = known, d
		}
	}
	return best
}

// maxTypoName is the longest member name checked for a typo: longer than
// any rule field and its limit.
const maxTypoName = 64

// typo is a misspelt field of one rule: found in the document, want the
// field it probably means, both as paths inside the rule
// ("clusterConfig.flowID").
type typo struct {
	rule        int
	found, want string
}

// typoMessage is the warning on a misspelt field, after the field name.
func typoMessage(want, def string) string {
	msg := fmt.Sprintf("is not a field of this rule; did you mean %q? It is ignored, as Java ignores unknown fields", want)
	if def != "" && def != `""` && def != "null" {
		msg += fmt.Sprintf(", so %s keeps its default %s", want, def)
	} else {
		msg += fmt.Sprintf(", so %s is not set", want)
	}
	return msg
}

// explainTypos adds to each refusal of a field that a misspelt field of
// the same rule probably meant: `refResource is required (the rule has
// "refResorce": did you mean "refResource"?)`. index maps a refusal's
// index to the rule's index in the document.
func explainTypos(errs runtime.RuleErrors, typos []typo, index func(int) int) {
	if len(typos) == 0 || len(errs) == 0 {
		return
	}
	byRule := map[int][]typo{} // a document may have a typo in each of its rules
	for _, t := range typos {
		byRule[t.rule] = append(byRule[t.rule], t)
	}
	for _, e := range errs {
		for _, t := range byRule[index(e.Index)] {
			if t.want == e.Field {
				e.Reason += fmt.Sprintf(" (the rule has %q: did you mean %q?)", t.found, t.want)
			}
		}
	}
}

// knownMembers reports whether every member name in data is a field the
// document's rules know, a quiet field, or a section name: the fast path
// then needs no walk for typos. It errs towards "no" (only the slower,
// exact walk follows): a name with an escape, or a colon inside a string
// read as a member, is unknown.
func knownMembers(data []byte, doc docSchema) bool {
	for i := bytes.IndexByte(data, ':'); i >= 0; {
		j := i - 1
		for j >= 0 && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j--
		}
		if j > 0 && data[j] == '"' { // else a colon inside a string value ("GET:/api")
			start := bytes.LastIndexByte(data[:j], '"')
			if start < 0 || !doc.knows(data[start+1:j]) {
				return false
			}
		}
		next := bytes.IndexByte(data[i+1:], ':')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return true
}

// knows reports whether name is a member that needs no typo check.
func (d docSchema) knows(name []byte) bool {
	if bytes.IndexByte(name, '\\') >= 0 {
		return false
	}
	if d.rules != nil && d.rules.names[string(name)] {
		return true
	}
	if _, ok := d.sections[string(name)]; ok {
		return true
	}
	for _, s := range d.sections {
		if s.names[string(name)] {
			return true
		}
	}
	return quietFields[string(name)] || quietFields[strings.ToLower(string(name))]
}

// memberNames is every field name of object schema s and of the objects
// inside it, for knownMembers.
func memberNames(s *schema, into map[string]bool, seen map[*schema]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	switch s.shape {
	case shapeObject:
		names := make([]string, 0, len(s.fields))
		for n := range s.fields {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			into[n] = true
			memberNames(s.fields[n], into, seen)
		}
	case shapeArray:
		memberNames(s.elem, into, seen)
	}
}

// unsetThresholds refuses a rule that leaves a threshold unset and has a
// misspelling of it (misspelt, the rule's typos): {"cuont": 20} loads in
// Java as count 0, which blocks every call. Java ignores the unknown
// field; here the rules in force stay, and the error names the field
// meant. A threshold written out ("count": 0) is what its author meant,
// and loads.
func (w *walker) unsetThresholds(obj *hujson.Object, s *schema, misspelt []typo) {
	thresholds := w.thresholds[w.section]
	if len(thresholds) == 0 {
		return
	}
	var set map[string]bool // the rule's fields, read once whatever the typos
	for _, t := range misspelt {
		if !slices.Contains(thresholds, t.want) {
			continue
		}
		if set == nil {
			set = map[string]bool{}
			for i := range obj.Members {
				if _, name := s.field(memberName(&obj.Members[i])); name != "" {
					set[name] = true
				}
			}
		}
		if set[t.want] {
			continue // written out: the misspelling is a stray field beside it
		}
		set[t.want] = true // one error per field, however many misspellings
		w.dropTypoWarning(t.found)
		if len(w.errs[w.section]) >= MaxRuleErrors {
			// Past the cap the refusal is only counted: no message to build.
			w.errs[w.section] = append(w.errs[w.section], &runtime.RuleError{Index: w.index, Field: t.want})
			continue
		}
		w.errs[w.section] = append(w.errs[w.section], &runtime.RuleError{Index: w.index, Resource: w.resource(), Field: t.want,
			Reason: fmt.Sprintf("is not set, and the rule has %q: did you mean %q? Java ignores %q and loads %s as %s, which changes what the rule protects",
				t.found, t.want, t.found, t.want, s.defs[t.want])})
	}
}

// dropTypoWarning removes the warning on the misspelt field found of the
// rule being walked: its refusal says it all. The rule's warnings are the
// last ones.
func (w *walker) dropTypoWarning(found string) {
	for i := len(w.warns) - 1; i >= 0 && w.warns[i].Rule == w.index && w.warns[i].Section == w.section; i-- {
		if w.warns[i].Field == found {
			w.warns = slices.Delete(w.warns, i, i+1)
			return
		}
	}
}
