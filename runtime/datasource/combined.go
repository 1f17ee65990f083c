package datasource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/suggest"
)

// NewCombined returns a Kind for one document that holds several kinds
// under their names: {"flow": [...], "degrade": [...], ...}.
//
//   - A kind whose key is absent is not managed by the document: its rules
//     in force are left alone. A key with [] clears that kind.
//   - An unknown key is an error (a misspelt "flwo" would otherwise
//     protect nothing), with the nearest known key suggested.
//   - Loading is all or nothing across kinds: every kind is validated
//     before any is loaded. Should a load still fail after that (a rule
//     package refusing what its ValidateRules accepted), the kinds already
//     loaded are put back to the rules they had, and the error says so.
func NewCombined(kinds ...Kind) Kind {
	return &combinedKind{kinds: kinds}
}

type combinedKind struct{ kinds []Kind }

func (c *combinedKind) Name() string   { return "combined" }
func (c *combinedKind) String() string { return "combined" }

// Rules returns the rules in force of each kind, by kind name.
func (c *combinedKind) Rules() any {
	out := make(map[string]any, len(c.kinds))
	for _, k := range c.kinds {
		out[k.Name()] = k.Rules()
	}
	return out
}

// Count is how many rules of every kind are in force.
func (c *combinedKind) Count() int {
	n := 0
	for _, k := range c.kinds {
		n += k.Count()
	}
	return n
}

func (c *combinedKind) keys() []string {
	keys := make([]string, len(c.kinds))
	for i, k := range c.kinds {
		keys[i] = k.Name()
	}
	return keys
}

func (c *combinedKind) Decode(name string, data []byte) (RuleSet, error) {
	text, err := checkText(name, data)
	if err != nil {
		return nil, err
	}
	if plainJSON(text) && knownMembers(text, c.docSchema()) {
		if set, err := c.decode(name, text, &javaText{std: text}); err == nil {
			return set, nil
		}
	}
	jt, err := readJava(name, text, c.docSchema())
	if err != nil {
		return nil, err
	}
	return c.decode(name, text, jt)
}

// decode decodes the sections of jt.std, text being the document as given.
func (c *combinedKind) decode(name string, text []byte, jt *javaText) (RuleSet, error) {
	data := jt.std
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(data, &sections); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &Error{Name: name, Err: fmt.Errorf("want a JSON object {%q: [...], ...}, found %s",
				c.kinds[0].Name(), jsonKindOf(data))}
		}
		return nil, syntaxError(name, data, err)
	}
	if sections == nil {
		return nil, &Error{Name: name, Err: fmt.Errorf("want a JSON object {%q: [...], ...}, found null", c.kinds[0].Name())}
	}
	var errs []error
	for key := range sections {
		if c.find(key) == nil {
			msg := fmt.Sprintf("unknown rule kind %q (want one of %s)", key, strings.Join(c.keys(), ", "))
			if s := suggest.Nearest(key, c.keys()); s != "" {
				msg = fmt.Sprintf("unknown rule kind %q (did you mean %q?)", key, s)
			}
			errs = append(errs, &Error{Name: name, Err: errors.New(msg)})
		}
	}
	set := &combinedSet{name: name, warns: jt.warns, more: jt.more}
	failed := len(errs) > 0
	perKind := make([]error, len(c.kinds))
	for i, k := range c.kinds { // in the kinds' order, so errors come out stably
		sec, ok := sections[k.Name()]
		if !ok {
			continue
		}
		rs, err := decodeSection(name, k, sec, jt, text)
		if err != nil {
			perKind[i], failed = err, true
			continue
		}
		set.parts = append(set.parts, part{kind: k, set: rs})
	}
	if !failed {
		return set, nil
	}
	// Report every problem of the document at once: the sections that
	// decoded are validated too.
	for i, k := range c.kinds {
		if perKind[i] != nil {
			continue
		}
		for _, p := range set.parts {
			if p.kind == k {
				perKind[i] = p.set.Validate()
			}
		}
	}
	return nil, errors.Join(append(errs, perKind...)...)
}

// docSchema is the shape of a combined document: each kind's array under
// its name.
func (c *combinedKind) docSchema() docSchema {
	doc := docSchema{sections: map[string]*schema{}, thresholds: map[string][]string{}}
	for _, k := range c.kinds {
		if sk, ok := k.(interface{ docSchema() docSchema }); ok {
			if ds := sk.docSchema(); ds.rules != nil {
				doc.sections[k.Name()] = ds.rules
				doc.thresholds[k.Name()] = ds.thresholds[""]
			}
		}
	}
	return doc
}

func (c *combinedKind) find(key string) Kind {
	for _, k := range c.kinds {
		if k.Name() == key {
			return k
		}
	}
	return nil
}

// decodeSection decodes one kind's array inside a combined document, and
// marks its errors with the section's key.
func decodeSection(name string, k Kind, sec json.RawMessage, jt *javaText, text []byte) (RuleSet, error) {
	if kind := jsonKindOf(sec); kind != "an array" {
		return nil, &Error{Name: name, Section: k.Name(), Kind: k.Name(),
			Err: fmt.Errorf("is %s, want an array of %s rules ([] clears them)", kind, k.Name())}
	}
	var rs RuleSet
	var err error
	if sk, ok := k.(interface {
		section(name string, data []byte, jt *javaText, key string, text []byte) (RuleSet, error)
	}); ok {
		rs, err = sk.section(name, sec, jt, k.Name(), text)
	} else {
		rs, err = k.Decode(name, sec)
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Section = k.Name()
			e.Line, e.Column = 0, 0 // positions inside the section are not the file's
		}
		return nil, err
	}
	return sectioned{rs, k.Name()}, nil
}

// sectioned marks a section's validation and load errors with its key.
type sectioned struct {
	RuleSet
	section string
}

func (s sectioned) mark(err error) error {
	var e *Error
	if errors.As(err, &e) {
		e.Section = s.section
	}
	return err
}

func (s sectioned) Validate() error { return s.mark(s.RuleSet.Validate()) }
func (s sectioned) Load() error     { return s.mark(s.RuleSet.Load()) }

func (s sectioned) Warnings() []Warning {
	ws, more := s.warnings()
	return capWarnings("", ws, more)
}

func (s sectioned) warnings() ([]Warning, int) {
	ws, more := s.RuleSet.warnings()
	return s.markWarnings(ws), more
}

func (s sectioned) skipInvalid() []Warning { return s.markWarnings(s.RuleSet.skipInvalid()) }

func (s sectioned) markWarnings(ws []Warning) []Warning {
	for i := range ws {
		if ws[i].Rule >= 0 || ws[i].Field != "" {
			ws[i].Section = s.section
		}
	}
	return ws
}

func (c *combinedKind) Encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range c.kinds {
		data, err := k.Encode()
		if err != nil {
			return nil, fmt.Errorf("encoding %s rules: %w", k.Name(), err)
		}
		if i > 0 {
			b.WriteString(",")
		}
		key, _ := json.Marshal(k.Name())
		b.Write(key)
		b.WriteString(":")
		b.Write(data)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

type part struct {
	kind Kind
	set  RuleSet
}

type combinedSet struct {
	name    string
	parts   []part
	warns   []Warning // from reading the document
	more    int       // warnings from reading it past MaxWarnings, counted only
	skipped []Warning
}

func (s *combinedSet) Warnings() []Warning {
	ws, more := s.warnings()
	return capWarnings(s.name, ws, more)
}

func (s *combinedSet) warnings() ([]Warning, int) {
	out, more := append([]Warning(nil), s.warns...), s.more
	for _, p := range s.parts {
		ws, m := p.set.warnings()
		out, more = append(out, ws...), more+m
	}
	sortWarnings(out)
	return out, more
}

func (s *combinedSet) skipInvalid() []Warning {
	var out []Warning
	for _, p := range s.parts {
		out = append(out, p.set.skipInvalid()...)
	}
	return out
}

func (s *combinedSet) Len() int {
	n := 0
	for _, p := range s.parts {
		n += p.set.Len()
	}
	return n
}

func (s *combinedSet) Validate() error {
	var errs []error
	for _, p := range s.parts {
		if err := p.set.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *combinedSet) Load() error {
	if err := s.Validate(); err != nil {
		return err
	}
	// Keep what is in force (as its own encoding), to put it back if a
	// later kind fails. A kind that cannot be snapshot is only a problem if
	// that restore is ever needed, and then the error says so.
	before := make([]RuleSet, len(s.parts))
	snapErrs := make([]error, len(s.parts))
	for i, p := range s.parts {
		if sk, ok := p.kind.(interface{ snapshot() RuleSet }); ok {
			before[i] = sk.snapshot()
			continue
		}
		data, err := p.kind.Encode()
		if err == nil {
			before[i], err = p.kind.Decode(s.name, data)
		}
		snapErrs[i] = err
	}
	for i, p := range s.parts {
		err := p.set.Load()
		if err == nil {
			continue
		}
		loaded := make([]string, 0, i)
		var restoreErrs []error
		for j := range i {
			loaded = append(loaded, s.parts[j].kind.Name())
			if before[j] == nil {
				restoreErrs = append(restoreErrs, fmt.Errorf("%s: no snapshot: %w", s.parts[j].kind.Name(), snapErrs[j]))
			} else if rerr := before[j].Load(); rerr != nil {
				restoreErrs = append(restoreErrs, rerr)
			}
		}
		if i == 0 {
			return err
		}
		what := fmt.Sprintf("%s loaded before %s failed; their previous rules were put back",
			strings.Join(loaded, ", "), p.kind.Name())
		if len(restoreErrs) > 0 {
			what = fmt.Sprintf("%s loaded before %s failed; putting their previous rules back failed too (%v): the new %s rules are in force",
				strings.Join(loaded, ", "), p.kind.Name(), errors.Join(restoreErrs...), strings.Join(loaded, ", "))
		}
		return errors.Join(err, &Error{Name: s.name, Err: errors.New(what)})
	}
	return nil
}

func (s *combinedSet) raw() map[string][]json.RawMessage {
	out := map[string][]json.RawMessage{}
	for _, p := range s.parts {
		for k, v := range p.set.raw() {
			out[k] = v
		}
	}
	return out
}
