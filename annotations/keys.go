package annotations

import (
	"strconv"
	"strings"
)

// keySpec is one directive key: how its value is parsed into a Directive,
// the Java attributes it stands for (a user porting an annotation is
// pointed to the Go spelling), and its documentation. This table is the
// only list of keys: parsing, "did you mean" suggestions and the key
// tables of the package doc, the command's doc and docs/directive.md all come
// from it (a test holds the docs to it).
type keySpec struct {
	name    string
	java    []string // Java @SentinelResource attributes it replaces
	summary string   // the value, in a few words (package doc)
	meaning string   // the value, in full (docs/directive.md); `code` in backquotes
	dflt    string   // the default; `code` in backquotes
	// decorateOnly and resourceOnly limit a key to one of the two
	// directives.
	decorateOnly, resourceOnly bool
	// set checks val and stores it. itemBase is the line offset of the
	// value's first byte for comma lists, or -1 (see lineParser.items).
	set func(p *lineParser, key, val Value, itemBase int)
}

// keys are the directive's keys, in the order the docs list them.
var keys = []keySpec{
	{
		name: "name", java: []string{"value"},
		summary: "resource name", meaning: "resource name",
		dflt: "`pkgpath.(*Type).method`",
		set:  func(p *lineParser, _, val Value, _ int) { p.d.Name = val },
	},
	{
		name: "blockHandler", java: []string{"blockHandler", "blockHandlerClass"},
		summary: "handler called when blocked (h or pkg.H)",
		meaning: "called instead of the method when blocked: business params + `*runtime.BlockError`, same results",
		dflt:    "none",
		set:     handlerKey(func(d *Directive) *Value { return &d.BlockHandler }),
	},
	{
		name: "fallback", java: []string{"fallback", "fallbackClass"},
		summary: "handler called on an error or a block",
		meaning: "called on a business error, and on a block without blockHandler: business params, optionally + `error`",
		dflt:    "none",
		set:     handlerKey(func(d *Directive) *Value { return &d.Fallback }),
	},
	{
		name: "defaultFallback", java: []string{"defaultFallback"},
		summary:      "handler taking () or (error)",
		meaning:      "generic fallback, params `()` or `(error)`",
		dflt:         "none",
		set:          handlerKey(func(d *Directive) *Value { return &d.DefaultFallback }),
		resourceOnly: true,
	},
	{
		name: "ignore", java: []string{"exceptionsToIgnore"},
		summary: "error values and types never traced",
		meaning: "error values (`ErrNotFound`, `io.EOF`) or types (`*NotFoundError`) neither traced nor sent to fallback",
		dflt:    "none",
		set:     setIgnore,
	},
	{
		name: "traffic", java: []string{"entryType"},
		summary: "in or out",
		meaning: "`in` or `out`; system rules apply to `in` only",
		dflt:    "`out`",
		set:     setTraffic,
	},
	{
		name: "type", java: []string{"resourceType"},
		summary: strings.Join(resourceTypeNames(), ", "),
		meaning: "`" + strings.Join(resourceTypeNames(), "`, `") + "`",
		dflt:    "`common`",
		set:     setType,
	},
	{
		name:    "args",
		summary: `parameters passed to hot-parameter rules ("" for none)`,
		meaning: "parameters passed to hot-parameter rules, in order (Java passes all); `\"\"` for none",
		dflt:    "all but a leading `context.Context`",
		set:     setArgs,
	},
	{
		name: "batch", java: []string{"count"},
		summary: "tokens acquired per call, at least 1", meaning: "tokens acquired per call, at least 1",
		dflt: "1",
		set:  setBatch,
	},
	{
		name:    "wrapper",
		summary: "name of the generated wrapper",
		meaning: "the wrapper's name (required for exported methods)",
		dflt:    "the method's name capitalised (`getOrder` → `GetOrder`)",
		set:     setWrapper,
	},
	{
		name:         "exclude",
		summary:      "methods passed through unprotected (decorate)",
		meaning:      "`//sentinel:decorate` only: methods passed through unprotected",
		dflt:         "none",
		set:          setExclude,
		decorateOnly: true,
	},
}

// refusedOn says why the key cannot be given on a //sentinel:decorate
// (decorate) or //sentinel:resource line, or "".
func (k *keySpec) refusedOn(decorate bool) string {
	switch {
	case decorate && k.resourceOnly:
		return k.name + "= does not apply to " + DecoratePrefix + ": name a fallback (a variable of the interface's type, or a func(error) returning one)"
	case !decorate && k.decorateOnly:
		return k.name + "= applies to " + DecoratePrefix + " only, where it names methods of the interface"
	}
	return ""
}

// keyNames lists the keys by name, in table order.
func keyNames() []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	return out
}

func findKey(name string) *keySpec {
	for i := range keys {
		if keys[i].name == name {
			return &keys[i]
		}
	}
	return nil
}

// javaKey maps a Java attribute that is not a key here to its key.
func javaKey(attr string) string {
	for _, k := range keys {
		for _, j := range k.java {
			if j == attr {
				return k.name
			}
		}
	}
	return ""
}

func handlerKey(field func(*Directive) *Value) func(*lineParser, Value, Value, int) {
	return func(p *lineParser, key, val Value, _ int) {
		if !isHandlerRef(val.Text) {
			p.errs.Add(val.Pos, "%s=%s: want a function name or pkg.Func", key.Text, showValue(val.Text))
			return
		}
		*field(p.d) = val
	}
}

func setWrapper(p *lineParser, _, val Value, _ int) {
	if !isIdent(val.Text) || val.Text == "_" {
		p.errs.Add(val.Pos, "wrapper=%s: want an identifier", showValue(val.Text))
		return
	}
	p.d.Wrapper = val
}

func setTraffic(p *lineParser, _, val Value, _ int) {
	switch val.Text {
	case "in":
		p.d.Traffic = Inbound
	case "out":
		p.d.Traffic = Outbound
	default:
		p.errs.Add(val.Pos, "traffic=%s: want in or out", showValue(val.Text))
	}
}

func setType(p *lineParser, _, val Value, _ int) {
	for _, rt := range ResourceTypes {
		if rt.Name == val.Text {
			p.d.Type = rt
			return
		}
	}
	names := resourceTypeNames()
	hint := ""
	if s := nearest(val.Text, names); s != "" {
		hint = " (did you mean " + s + "?)"
	}
	p.errs.Add(val.Pos, "type=%s: want one of %s%s", showValue(val.Text), strings.Join(names, ", "), hint)
}

func setBatch(p *lineParser, _, val Value, _ int) {
	n, err := strconv.Atoi(val.Text)
	if err != nil || n < 1 {
		p.errs.Add(val.Pos, "batch=%s: want a positive integer", showValue(val.Text))
		return
	}
	p.d.Batch = n
}

func setArgs(p *lineParser, key, val Value, itemBase int) {
	p.d.Args = []Value{} // given: never nil, even when empty
	if val.Text == "" {
		return // args="": hot-parameter rules see no arguments
	}
	p.d.Args = p.names(key, val, itemBase, "parameter")
}

func setExclude(p *lineParser, key, val Value, itemBase int) {
	p.d.Exclude = p.names(key, val, itemBase, "method")
}

// names splits a comma list of identifiers (parameter or method names,
// what says which), refusing what is not one and duplicates.
func (p *lineParser) names(key, val Value, itemBase int, what string) []Value {
	out := []Value{}
	seen := map[string]bool{}
	for _, it := range p.items(key.Text, val, itemBase) {
		switch {
		case !isIdent(it.Text) || it.Text == "_":
			p.errs.Add(it.Pos, "%s: %s is not a %s name", key.Text, showValue(it.Text), what)
		case seen[it.Text]:
			p.errs.Add(it.Pos, "%s: duplicate %s %s", key.Text, what, it.Text)
		default:
			seen[it.Text] = true
			out = append(out, it)
		}
	}
	return out
}

func setIgnore(p *lineParser, key, val Value, itemBase int) {
	for _, it := range p.items(key.Text, val, itemBase) {
		if !isErrorRef(it.Text) {
			p.errs.Add(it.Pos, "ignore: %s is not an error value or type (want Name, pkg.Name, *Name or *pkg.Name)", showValue(it.Text))
			continue
		}
		p.d.Ignore = append(p.d.Ignore, it)
	}
}
