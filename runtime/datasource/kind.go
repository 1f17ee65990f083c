package datasource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Kind is one kind of rule that a data source delivers: Flow, Degrade,
// System, Authority, ParamFlow, Adaptive, or Combined (all of them in one
// document).
// A Kind decodes bytes into a RuleSet, and encodes the rules in force.
//
// NewKind makes a Kind for any rule package that follows the rule loading
// contract (a Property, ValidateRules and Rules); NewCombined groups kinds.
type Kind interface {
	// Name is the kind's name in messages and its key in a combined
	// document: "flow", "degrade", "system", "authority", "paramFlow",
	// "adaptive".
	Name() string
	// Decode parses a document of this kind. name prefixes every error
	// (usually the file name). The rules are not validated yet.
	Decode(name string, data []byte) (RuleSet, error)
	// Encode writes the rules in force as Java-compatible JSON.
	Encode() ([]byte, error)
	// Rules returns a copy of the rules in force: a slice of the rule
	// package's Rule type (never nil), which encodes with Java's field
	// names; for a combined kind, a map from kind name to that.
	Rules() any
	// Count is how many rules are in force.
	Count() int
}

// RuleSet is a decoded document, ready to be validated and loaded.
type RuleSet interface {
	// Len is the number of rules (of every kind, for a combined document).
	Len() int
	// Validate checks every rule as the rule package's LoadRules would,
	// loading nothing. The error is an *Error naming each invalid rule.
	Validate() error
	// Load validates the rules and puts them in force through the rule
	// package's Property, all or nothing; on error the rules in force stay.
	Load() error
	// Warnings is what the document does that Java accepts and that its
	// author should probably fix (quoted numbers, comments, rules that
	// Java loads but that do not do what they seem to), in document order.
	Warnings() []Warning

	// warnings is Warnings before the cap, and how many more were only
	// counted.
	warnings() ([]Warning, int)
	// skipInvalid leaves out the rules Validate refuses (Java's policy)
	// and returns a warning for each.
	skipInvalid() []Warning

	// rules is the raw JSON of each rule per kind name, for checks that
	// read fields every Java rule shares (resource, regex).
	raw() map[string][]json.RawMessage
}

// NewKind returns the Kind for a rule package: prop is the package's
// Property() (Load goes through prop.Update, so the property's listeners
// see every load), validate its ValidateRules and current its Rules.
func NewKind[R any](name string, prop *runtime.Property[[]R], validate func([]R) error, current func() []R, opts ...KindOption[R]) Kind {
	k := &ruleKind[R]{name: name, prop: prop, validate: validate, current: current}
	for _, o := range opts {
		o(k)
	}
	return k
}

// KindOption configures NewKind.
type KindOption[R any] func(*ruleKind[R])

// WithLint gives a Kind the rule package's lint: the rules that Java's
// validators accept but that probably do not do what their author meant,
// each with what Java does with it. They load, and are reported as
// Warnings.
func WithLint[R any](lint func([]R) runtime.RuleErrors) KindOption[R] {
	return func(k *ruleKind[R]) { k.lint = lint }
}

// WithThresholds names the fields of a rule (JSON names) whose absence
// changes its protection drastically: a flow rule's count (absent, it is
// 0: every call blocked), an authority rule's strategy (absent, a black
// list becomes a white list). A rule that leaves one out and has a
// misspelling of it ("cuont") is refused, by every source, rather than
// loaded as Java loads it; a threshold written out ("count": 0) loads.
func WithThresholds[R any](fields ...string) KindOption[R] {
	return func(k *ruleKind[R]) { k.thresholds = fields }
}

type ruleKind[R any] struct {
	name       string
	prop       *runtime.Property[[]R]
	validate   func([]R) error
	current    func() []R
	lint       func([]R) runtime.RuleErrors
	thresholds []string
}

// docSchema is the shape of this kind's documents, for readJava.
func (k *ruleKind[R]) docSchema() docSchema {
	return docSchema{rules: schemaFor(reflect.TypeFor[R]()), thresholds: map[string][]string{"": k.thresholds}}
}

func (k *ruleKind[R]) Name() string { return k.name }

func (k *ruleKind[R]) Rules() any {
	if r := k.current(); r != nil {
		return r
	}
	return []R{} // JSON [] rather than null
}

func (k *ruleKind[R]) Count() int { return len(k.current()) }

func (k *ruleKind[R]) String() string { return k.name }

func (k *ruleKind[R]) Decode(name string, data []byte) (RuleSet, error) {
	data, err := checkText(name, data)
	if err != nil {
		return nil, err
	}
	if plainJSON(data) && knownMembers(data, k.docSchema()) {
		if rs := k.strict(name, data); rs != nil {
			rs.text = data
			return rs, nil
		}
	}
	jt, err := readJava(name, data, k.docSchema())
	if err != nil {
		return nil, err
	}
	rs, err := k.decodeStd(name, jt.std, jt.errs[""])
	if err != nil {
		return nil, err
	}
	rs.warns, rs.more, rs.text, rs.offs, rs.typos = jt.warns, jt.more, data, jt.offs[""], jt.typos[""]
	return rs, nil
}

// decodeStd decodes standard JSON; walkErrs are the values readJava found
// no way to coerce, by rule.
func (k *ruleKind[R]) decodeStd(name string, data []byte, walkErrs runtime.RuleErrors) (*ruleSet[R], error) {
	if len(walkErrs) > 0 {
		elems, err := splitArray(name, k.name, data)
		if err != nil {
			return nil, err
		}
		return k.decodeElems(name, elems, walkErrs)
	}
	if rs := k.strict(name, data); rs != nil {
		return rs, nil
	}
	// Slow path, only for documents that are refused: element by element,
	// to say which rule and which field is wrong.
	elems, err := splitArray(name, k.name, data)
	if err != nil {
		return nil, err
	}
	return k.decodeElems(name, elems, nil)
}

// strict is the fast path: one pass of encoding/json over the whole
// array; nil when anything in it needs a closer look. Pointers tell a null
// element from a rule (a null would otherwise decode as a zero rule,
// skipping Java's defaults).
func (k *ruleKind[R]) strict(name string, data []byte) *ruleSet[R] {
	var ptrs []*R
	if err := json.Unmarshal(data, &ptrs); err != nil || ptrs == nil {
		return nil
	}
	rules := make([]R, len(ptrs))
	for i, p := range ptrs {
		if p == nil {
			return nil
		}
		rules[i] = *p
	}
	return &ruleSet[R]{kind: k, name: name, rules: rules, data: data}
}

// decodeElems decodes each rule of an array already split into elements;
// known are refusals found before, by rule, which take a rule's place.
func (k *ruleKind[R]) decodeElems(name string, elems []json.RawMessage, known runtime.RuleErrors) (*ruleSet[R], error) {
	rules := make([]R, len(elems))
	var errs runtime.RuleErrors
	omitted := 0
	byRule := map[int]runtime.RuleErrors{}
	for _, e := range known {
		byRule[e.Index] = append(byRule[e.Index], e)
	}
	for i, el := range elems {
		if mine := byRule[i]; len(mine) > 0 {
			for _, e := range mine {
				if len(errs) < MaxRuleErrors {
					errs = append(errs, e)
				} else {
					omitted++
				}
			}
			continue
		}
		if len(errs) == MaxRuleErrors {
			// Past the cap, a rule is only counted: no diagnosis to build.
			if bytes.Equal(bytes.TrimSpace(el), []byte("null")) || json.Unmarshal(el, &rules[i]) != nil {
				omitted++
			}
			continue
		}
		if e := decodeRule(i, el, &rules[i]); e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return nil, &Error{Name: name, Kind: k.name, Rules: errs, Omitted: omitted}
	}
	return &ruleSet[R]{kind: k, name: name, rules: rules, elems: elems}, nil
}

// snapshot is the rules in force as a RuleSet that puts them back.
func (k *ruleKind[R]) snapshot() RuleSet {
	return &ruleSet[R]{kind: k, name: "(rules in force before)", rules: k.current()}
}

func (k *ruleKind[R]) Encode() ([]byte, error) {
	rules := k.current()
	if rules == nil {
		rules = []R{}
	}
	// Compact: defaults filled in already make a rule several times the
	// size of a terse one, and what is written must fit the size cap.
	return json.Marshal(rules)
}

type ruleSet[R any] struct {
	kind  *ruleKind[R]
	name  string
	rules []R
	data  []byte            // the array, split into elems when raw needs them
	elems []json.RawMessage // nil until split

	warns   []Warning // from reading the document
	more    int       // warnings from reading it past MaxWarnings, counted only
	skipped []Warning // rules left out by skipInvalid
	text    []byte    // the document as given, for positions
	section string    // the key of this kind in a combined text; "" otherwise
	offs    []int     // where each rule starts in text; nil until needed
	lines   lineIndex
	index   []int  // each rule's index in the document; nil: the identity
	typos   []typo // misspelt fields, by rule index in the document
}

func (s *ruleSet[R]) Len() int { return len(s.rules) }

func (s *ruleSet[R]) Warnings() []Warning {
	ws, more := s.warnings()
	return capWarnings(s.name, ws, more)
}

func (s *ruleSet[R]) warnings() ([]Warning, int) {
	out := append([]Warning(nil), s.warns...)
	out = append(out, s.skipped...)
	if s.kind.lint != nil {
		for _, e := range s.kind.lint(s.rules) {
			e := *e
			e.Index = s.docIndex(e.Index)
			w := ruleWarning(s.name, &e)
			w.Line, w.Column = s.at(e.Index)
			out = append(out, w)
		}
	}
	sortWarnings(out)
	return out, s.more
}

// docIndex is rule i's index in the document.
func (s *ruleSet[R]) docIndex(i int) int {
	if s.index != nil && i >= 0 && i < len(s.index) {
		return s.index[i]
	}
	return i
}

// at is where the document's rule i starts.
func (s *ruleSet[R]) at(i int) (line, col int) {
	if s.offs == nil && s.text != nil {
		s.offs = ruleOffsets(s.text)[s.section] // a plain document was not walked
	}
	if i < 0 || i >= len(s.offs) {
		return 0, 0
	}
	return s.lines.position(s.text, s.offs[i])
}

func (s *ruleSet[R]) skipInvalid() []Warning {
	for range 3 { // leaving rules out may make others valid (one rule per resource)
		err := s.kind.validate(s.rules)
		if err == nil {
			break
		}
		var res runtime.RuleErrors
		var one *runtime.RuleError
		switch {
		case errors.As(err, &res):
		case errors.As(err, &one):
			res = runtime.RuleErrors{one}
		default:
			return nil // not about single rules: Load says so
		}
		explainTypos(res, s.typos, s.docIndex)
		bad := map[int]bool{}
		for _, e := range res {
			if e.Index < 0 || e.Index >= len(s.rules) {
				return nil
			}
			bad[e.Index] = true
			e := *e
			e.Index = s.docIndex(e.Index)
			w := skippedWarning(s.name, &e)
			w.Line, w.Column = s.at(e.Index)
			s.skipped = append(s.skipped, w)
		}
		keep, index := s.rules[:0:0], make([]int, 0, len(s.rules))
		for i := range s.rules {
			if !bad[i] {
				keep = append(keep, s.rules[i])
				index = append(index, s.docIndex(i))
			}
		}
		s.rules, s.index = keep, index
		s.data, s.elems = nil, nil // raw() describes the document's rules no more
	}
	return s.skipped
}

func (s *ruleSet[R]) Validate() error { return s.wrap(s.kind.validate(s.rules)) }

func (s *ruleSet[R]) Load() error { return s.wrap(s.kind.prop.Update(s.rules)) }

func (s *ruleSet[R]) raw() map[string][]json.RawMessage {
	if s.elems == nil && s.data != nil {
		_ = json.Unmarshal(s.data, &s.elems) // it decoded as an array already
	}
	return map[string][]json.RawMessage{s.kind.name: s.elems}
}

// wrap names the document and kind in a rule package's error.
func (s *ruleSet[R]) wrap(err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Name: s.name, Kind: s.kind.name}
	var res runtime.RuleErrors
	var one *runtime.RuleError
	switch {
	case errors.As(err, &res):
		e.Rules, e.Omitted = capRules(res)
		explainTypos(e.Rules, s.typos, s.docIndex)
	case errors.As(err, &one):
		e.Rules = runtime.RuleErrors{one}
		explainTypos(e.Rules, s.typos, s.docIndex)
	default:
		e.Err = fmt.Errorf("%s rules refused: %w", s.kind.name, err)
	}
	return e
}

// section decodes one kind's array inside a combined document that
// readJava has read already: data is standard JSON, text and offs place
// the rules in the original document.
func (k *ruleKind[R]) section(name string, data []byte, jt *javaText, key string, text []byte) (RuleSet, error) {
	rs, err := k.decodeStd(name, data, jt.errs[key])
	if err != nil {
		return nil, err
	}
	rs.text, rs.section, rs.offs, rs.typos = text, key, jt.offs[key], jt.typos[key]
	return rs, nil
}
