package datasource

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Kind is one kind of rule that a data source delivers: Flow, Degrade,
// System, Authority, ParamFlow, or Combined (all of them in one document).
// A Kind decodes bytes into a RuleSet, and encodes the rules in force.
//
// NewKind makes a Kind for any rule package that follows the rule loading
// contract (a Property, ValidateRules and Rules); NewCombined groups kinds.
type Kind interface {
	// Name is the kind's name in messages and its key in a combined
	// document: "flow", "degrade", "system", "authority", "paramFlow".
	Name() string
	// Decode parses a document of this kind. name prefixes every error
	// (usually the file name). The rules are not validated yet.
	Decode(name string, data []byte) (RuleSet, error)
	// Encode writes the rules in force as Java-compatible JSON.
	Encode() ([]byte, error)
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

	// rules is the raw JSON of each rule per kind name, for checks that
	// read fields every Java rule shares (resource, regex).
	raw() map[string][]json.RawMessage
}

// NewKind returns the Kind for a rule package: prop is the package's
// Property() (Load goes through prop.Update, so the property's listeners
// see every load), validate its ValidateRules and current its Rules.
func NewKind[R any](name string, prop *runtime.Property[[]R], validate func([]R) error, current func() []R) Kind {
	return &ruleKind[R]{name: name, prop: prop, validate: validate, current: current}
}

type ruleKind[R any] struct {
	name     string
	prop     *runtime.Property[[]R]
	validate func([]R) error
	current  func() []R
}

func (k *ruleKind[R]) Name() string { return k.name }

func (k *ruleKind[R]) String() string { return k.name }

func (k *ruleKind[R]) Decode(name string, data []byte) (RuleSet, error) {
	data, err := checkText(name, data)
	if err != nil {
		return nil, err
	}
	// Fast path: one pass of encoding/json over the whole array. Pointers
	// tell a null element from a rule (a null would otherwise decode as a
	// zero rule, skipping Java's defaults).
	var ptrs []*R
	if err := json.Unmarshal(data, &ptrs); err == nil && ptrs != nil {
		rules := make([]R, len(ptrs))
		ok := true
		for i, p := range ptrs {
			if p == nil {
				ok = false
				break
			}
			rules[i] = *p
		}
		if ok {
			return &ruleSet[R]{kind: k, name: name, rules: rules, data: data}, nil
		}
	}
	// Slow path, only for documents that are refused: element by element,
	// to say which rule and which field is wrong.
	elems, err := splitArray(name, k.name, data)
	if err != nil {
		return nil, err
	}
	return k.decodeElems(name, elems)
}

// decodeElems decodes each rule of an array already split into elements.
func (k *ruleKind[R]) decodeElems(name string, elems []json.RawMessage) (*ruleSet[R], error) {
	rules := make([]R, len(elems))
	var errs runtime.RuleErrors
	for i, el := range elems {
		if e := decodeRule(i, el, &rules[i]); e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return nil, &Error{Name: name, Kind: k.name, Rules: errs}
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
	return json.MarshalIndent(rules, "", "  ")
}

type ruleSet[R any] struct {
	kind  *ruleKind[R]
	name  string
	rules []R
	data  []byte            // the array, split into elems when raw needs them
	elems []json.RawMessage // nil until split
}

func (s *ruleSet[R]) Len() int { return len(s.rules) }

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
		e.Rules = res
	case errors.As(err, &one):
		e.Rules = runtime.RuleErrors{one}
	default:
		e.Err = fmt.Errorf("%s rules refused: %w", s.kind.name, err)
	}
	return e
}
