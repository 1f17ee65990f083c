package datasource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/internal/suggest"
)

// Severity says whether a Problem makes a rule file unusable.
type Severity int

const (
	// SeverityError: the file would be refused.
	SeverityError Severity = iota
	// SeverityWarning: the file loads, but probably does not do what its
	// author meant (a rule for a resource no code declares protects nothing).
	SeverityWarning
	// SeverityNote: the file loads and does what it says, which is worth
	// knowing (a dry-run rule blocks nothing).
	SeverityNote
)

func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityNote:
		return "note"
	}
	return "error"
}

// Problem is one finding of CheckFiles.
type Problem struct {
	File         string
	Line, Column int    // where the error is, or where the rule starts; 0 when unknown
	Section      string // the kind's key in a combined file; "" otherwise
	Rule         int    // the rule's index in its array; -1 when not about one rule
	Resource     string
	Field        string // Java's JSON field name, when one field is at fault
	Severity     Severity
	Message      string // the reason, after the field name
	// Undeclared: a warning that the rule's resource is no declared
	// resource (CheckFiles' cross-check): the rule protects nothing.
	Undeclared bool
}

// String formats p as the CLI prints it:
//
//	flow.json:14:3: rule 2 (resource "getOrder"): count -1 is negative; it must be >= 0 (0 blocks every call)
//	flow.json:2:3: rule 0 (resource "getOrdr"): warning: no declared resource is named "getOrdr" (did you mean "getOrder"?)
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
	}
	b.WriteString(": ")
	if p.Section != "" {
		b.WriteString(p.Section + ": ")
	}
	if p.Rule >= 0 {
		fmt.Fprintf(&b, "rule %d", p.Rule)
		if p.Resource != "" {
			fmt.Fprintf(&b, " (resource %q)", p.Resource)
		}
		b.WriteString(": ")
	}
	if p.Severity != SeverityError {
		b.WriteString(p.Severity.String() + ": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field + " ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// CheckFiles is the engine of `sentinelgen rules check`: it reads each rule
// file (with the default size cap), tells its kind (DetectKind), and
// reports every problem a data source would refuse the file for, with the
// same messages, without loading anything. When declared is non-nil (the
// resources declared by //sentinel:resource directives), it also warns on
// each rule whose resource no declared resource matches — a typo in a rule
// file silently protects nothing — suggesting the nearest declared name.
// A regex rule is matched against the declared names. nil declared skips
// that cross-check. A rule that blocks every call (count 0) is a warning;
// each dry-run rule ("dryRun": true) gets a note.
// Problems come out per file in the order of paths, and within a file in
// document order.
//
// err is non-nil only when there is nothing to check (no paths).
func CheckFiles(paths []string, declared []string) (problems []Problem, err error) {
	if len(paths) == 0 {
		return nil, errors.New("no rule files to check")
	}
	for _, path := range paths {
		data, err := ReadFile(path, 0)
		if err != nil {
			problems = append(problems, toProblems(path, err)...)
			continue
		}
		kind, err := DetectKind(path, data)
		if err != nil {
			problems = append(problems, toProblems(path, err)...)
			continue
		}
		problems = append(problems, Check(path, data, kind, declared)...)
	}
	return problems, nil
}

// Check is CheckFiles for one document of a known kind.
// A problem about one rule carries the line and column where the rule
// starts, so editors can jump to it.
func Check(name string, data []byte, kind Kind, declared []string) []Problem {
	rs, err := kind.Decode(name, data)
	if err != nil {
		problems := toProblems(name, err)
		// Shapes Java loads as no rule at all explain many refusals:
		// read them even when the document is refused.
		if jt, jerr := readJavaFor(name, data, kind); jerr == nil {
			for _, w := range jt.warns {
				if w.Rule >= 0 {
					problems = append(problems, w.problem())
				}
			}
		}
		locate(data, problems)
		sortProblems(problems)
		return problems
	}
	problems := toProblems(name, rs.Validate())
	for _, w := range rs.Warnings() {
		problems = append(problems, w.problem())
	}
	if declared != nil {
		problems = append(problems, checkResources(name, kind, rs, declared)...)
	}
	problems = append(problems, blockAllWarnings(name, kind, rs)...)
	problems = append(problems, dryRunNotes(name, kind, rs)...)
	locate(data, problems)
	sortProblems(problems)
	return problems
}

// readJavaFor reads data as kind's documents are read, for warnings.
func readJavaFor(name string, data []byte, kind Kind) (*javaText, error) {
	text, err := checkText(name, data)
	if err != nil {
		return nil, err
	}
	if k, ok := kind.(interface{ docSchema() docSchema }); ok {
		return readJava(name, text, k.docSchema())
	}
	return nil, errors.New("a kind of its own: read by its Decode only")
}

// sortProblems puts a file's problems in document order; problems without
// a place come first, as they were.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Column < ps[j].Column
	})
}

// checkResources warns on rules whose resource matches nothing declared.
func checkResources(name string, kind Kind, rs RuleSet, declared []string) []Problem {
	known := make(map[string]bool, len(declared))
	for _, d := range declared {
		known[d] = true
	}
	sorted := append([]string(nil), declared...)
	sort.Strings(sorted)
	var out []Problem
	eachRawRule(kind, rs, func(section string, i int, el json.RawMessage) {
		var r struct {
			Resource any  `json:"resource"`
			Regex    bool `json:"regex"`
		}
		if json.Unmarshal(el, &r) != nil {
			return
		}
		res, _ := r.Resource.(string)
		if res == "" { // system rules have none; a blank one is a validation error
			return
		}
		p := Problem{File: name, Section: section, Rule: i, Resource: res, Severity: SeverityWarning, Undeclared: true}
		if r.Regex {
			re, err := ruleutil.CompileResourceRegex(res)
			if err != nil || anyMatch(re.MatchString, sorted) {
				return
			}
			p.Message = fmt.Sprintf("the pattern %q matches no declared resource", res)
			out = append(out, p)
			return
		}
		if known[res] {
			return
		}
		p.Message = fmt.Sprintf("no declared resource is named %q; this rule protects nothing", res)
		if s := suggest.Nearest(res, sorted); s != "" {
			p.Message = fmt.Sprintf("no declared resource is named %q (did you mean %q?)", res, s)
		}
		out = append(out, p)
	})
	return out
}

// eachRawRule calls fn with each rule's raw JSON, kinds sorted by name
// and rules in document order; section is the kind's name in a combined
// document, "" otherwise.
func eachRawRule(kind Kind, rs RuleSet, fn func(section string, i int, el json.RawMessage)) {
	_, combined := kind.(*combinedKind)
	raw := rs.raw()
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		section := ""
		if combined {
			section = k
		}
		for i, el := range raw[k] {
			fn(section, i, el)
		}
	}
}

func anyMatch(match func(string) bool, names []string) bool {
	for _, n := range names {
		if match(n) {
			return true
		}
	}
	return false
}

// toProblems flattens an error of this package into problems.
func toProblems(name string, err error) []Problem {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		if len(e.Rules) == 0 {
			msg := e.Error()
			if e.Err != nil {
				msg = e.Err.Error()
			}
			return []Problem{{File: e.Name, Line: e.Line, Column: e.Column, Section: e.Section, Rule: -1, Message: msg}}
		}
		out := make([]Problem, len(e.Rules))
		for i, r := range e.Rules {
			out[i] = Problem{File: e.Name, Section: e.Section, Rule: r.Index, Resource: r.Resource, Field: r.Field, Message: r.Reason}
		}
		return out
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []Problem
		for _, sub := range j.Unwrap() {
			out = append(out, toProblems(name, sub)...)
		}
		return out
	}
	return []Problem{{File: name, Rule: -1, Message: err.Error()}}
}

// builtin is the rule kinds DetectKind knows, by name (see kinds.go).
var builtin = map[string]Kind{}

// kindHints maps words in file names to kinds, most specific first
// ("paramflow.json" is not a flow file).
var kindHints = []struct{ word, kind string }{
	{"paramflow", "paramFlow"}, {"param-flow", "paramFlow"}, {"param_flow", "paramFlow"}, {"hotparam", "paramFlow"}, {"param", "paramFlow"},
	{"degrade", "degrade"}, {"circuitbreak", "degrade"}, {"breaker", "degrade"},
	{"authority", "authority"}, {"auth", "authority"},
	{"adaptive", "adaptive"}, {"concurrency", "adaptive"},
	{"system", "system"},
	{"flow", "flow"},
}

// fieldHints maps fields only one kind of Java rule has to that kind.
var fieldHints = []struct{ field, kind string }{
	{"rttTolerance", "adaptive"}, {"minLimit", "adaptive"}, {"maxLimit", "adaptive"}, {"initialLimit", "adaptive"}, {"probeIntervalMs", "adaptive"},
	{"paramIdx", "paramFlow"}, {"paramFlowItemList", "paramFlow"}, {"durationInSec", "paramFlow"},
	{"timeWindow", "degrade"}, {"slowRatioThreshold", "degrade"}, {"minRequestAmount", "degrade"}, {"statIntervalMs", "degrade"},
	{"highestSystemLoad", "system"}, {"highestCpuUsage", "system"}, {"avgRt", "system"}, {"maxThread", "system"}, {"qps", "system"},
	{"controlBehavior", "flow"}, {"maxQueueingTimeMs", "flow"}, {"warmUpPeriodSec", "flow"}, {"refResource", "flow"}, {"clusterMode", "flow"},
}

// DetectKind tells which kind of rule document data is: a JSON object is a
// combined document; an array's kind comes from the file name (flow.json,
// degrade-rules.json, paramflow.json, sentinel-system.json...) or else from
// fields only one kind of rule has (controlBehavior, timeWindow, paramIdx,
// highestSystemLoad...); a rule with limitApp and strategy but no count is
// an authority rule.
func DetectKind(name string, data []byte) (Kind, error) {
	text, err := checkText(name, data)
	if err != nil {
		return nil, err
	}
	// Comments and trailing text read as when loading.
	jt, err := readJava(name, text, docSchema{})
	if err != nil {
		return nil, err
	}
	text = jt.std
	if trimmed := bytes.TrimSpace(text); trimmed[0] == '{' {
		if k := builtin["combined"]; k != nil {
			return k, nil
		}
	}
	base := strings.ToLower(filepath.Base(name))
	for _, h := range kindHints {
		if strings.Contains(base, h.word) {
			if k := builtin[h.kind]; k != nil {
				return k, nil
			}
		}
	}
	var elems []map[string]json.RawMessage
	if err := json.Unmarshal(text, &elems); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &Error{Name: name, Err: fmt.Errorf("want a JSON array of rules or a combined object, found %s", jsonKindOf(text))}
		}
		return nil, syntaxError(name, text, err)
	}
	for _, el := range elems {
		for _, h := range fieldHints {
			if _, ok := el[h.field]; ok {
				if k := builtin[h.kind]; k != nil {
					return k, nil
				}
			}
		}
		_, count := el["count"]
		_, strategy := el["strategy"]
		_, limitApp := el["limitApp"]
		if strategy && limitApp && !count {
			if k := builtin["authority"]; k != nil {
				return k, nil
			}
		}
		if count {
			if k := builtin["flow"]; k != nil { // a flow rule with Java's defaults for the rest
				return k, nil
			}
		}
	}
	return nil, &Error{Name: name, Err: errors.New("cannot tell which kind of rules this file holds; name it after its kind (flow.json, degrade.json, system.json, authority.json, paramflow.json, adaptive.json)")}
}
