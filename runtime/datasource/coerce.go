package datasource

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// walker coerces the rules of a document in place, as fastjson and
// Jackson coerce values into Java's field types, and warns about each
// coercion.
type walker struct {
	name  string
	data  []byte
	warns []Warning
	errs  map[string]runtime.RuleErrors
	offs  map[string][]int
	typos map[string][]typo  // misspelt fields, per section
	near  map[nearKey]string // nearField's answers, up to maxNear names
	// thresholds are the fields of a rule, per section, that a
	// misspelling must not leave unset: such a rule is refused.
	thresholds map[string][]string

	lines   lineIndex
	more    int  // warnings past MaxWarnings, counted only
	changed bool // a value was rewritten
	dropped bool // a member was dropped

	// the rule being walked
	section string
	index   int
	obj     *hujson.Object
	res     string // its resource, once found
	resDone bool
}

// resource is the walked rule's resource, for messages. It is found once
// per rule: a rule with many members to warn about (duplicate keys are
// valid JSON) must not cost a scan of its members per message.
func (w *walker) resource() string {
	if w.resDone {
		return w.res
	}
	w.res, w.resDone = "", true
	if w.obj == nil {
		return ""
	}
	for i := range w.obj.Members {
		m := &w.obj.Members[i]
		if lit, ok := m.Value.Value.(hujson.Literal); ok && string(memberName(m)) == "resource" && lit.Kind() == '"' {
			w.res = lit.String()
			break
		}
	}
	return w.res
}

// rules walks an array of rules (section "" for a single kind).
func (w *walker) rules(section string, v *hujson.Value, rule *schema) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return // the decoder says what it is instead
	}
	offs := make([]int, len(arr.Elements))
	for i := range arr.Elements {
		el := &arr.Elements[i]
		offs[i] = el.StartOffset
		obj, ok := el.Value.(*hujson.Object)
		if !ok {
			continue
		}
		w.section, w.index, w.obj, w.resDone = section, i, obj, false
		w.shapes(el, obj, rule)
		w.object(obj, rule, "")
	}
	w.offs[section] = offs
}

// shapes warns on rule shapes that Java silently loads as no rule at all.
func (w *walker) shapes(el *hujson.Value, obj *hujson.Object, rule *schema) {
	var wrapped, resource, paramItem bool
	for i := range obj.Members {
		switch string(memberName(&obj.Members[i])) {
		case "rule":
			wrapped = obj.Members[i].Value.Value.Kind() == '{'
		case "resource":
			resource = true
		case "paramItem":
			paramItem = true
		}
	}
	if !wrapped && !paramItem {
		return
	}
	if f, _ := rule.field([]byte("rule")); f == nil && wrapped && !resource {
		w.warn(el.StartOffset, "", `is wrapped in {"app": ..., "rule": {...}}, the Sentinel dashboard's rule entity; Java reads no resource from it and loads no rule: put the inner "rule" object in the array instead`)
	}
	if f, _ := rule.field([]byte("paramItem")); f == nil && paramItem {
		if p, _ := rule.field([]byte("paramIdx")); p != nil {
			w.warn(el.StartOffset, "paramItem", "belongs to a gateway flow rule (GatewayFlowRule, for API gateways), not a hot-parameter rule; Java reads no paramIdx from it and loads no rule: a hot-parameter rule names its argument with paramIdx")
		}
	}
}

func (w *walker) object(obj *hujson.Object, s *schema, path string) {
	var misspelt []typo // of this object's fields
	kept := obj.Members[:0]
	for _, m := range obj.Members {
		fs, name := s.field(memberName(&m))
		if fs == nil {
			if t, ok := w.typo(&m, s, path); ok && path == "" {
				misspelt = append(misspelt, t)
			}
		}
		if fs == nil || fs.shape == shapeAny {
			kept = append(kept, m)
			continue
		}
		if w.value(&m.Value, fs, path+name, s.defs[name]) {
			w.dropped = true
			continue
		}
		kept = append(kept, m)
	}
	// Members dropped (nulls) leave no dangling comma: Pack writes the
	// separators itself.
	obj.Members = kept
	if len(misspelt) > 0 {
		w.unsetThresholds(obj, s, misspelt)
	}
}

// value coerces one field's value in place; it reports whether the member
// is to be dropped (a null: the field keeps its default).
func (w *walker) value(v *hujson.Value, s *schema, path, def string) (drop bool) {
	if s.shape == shapeAny {
		return false
	}
	switch val := v.Value.(type) {
	case *hujson.Object:
		if s.shape == shapeObject {
			w.object(val, s, path+".")
			return false
		}
		w.refuse(v, path, s, "an object")
		return false
	case *hujson.Array:
		if s.shape == shapeArray {
			if s.elem.shape == shapeAny {
				return false
			}
			// A null item is never dropped (value reports false for it
			// without a default): the rule package says what it makes of it.
			for i := range val.Elements {
				w.value(&val.Elements[i], s.elem, path+"["+strconv.Itoa(i)+"]", "")
			}
			return false
		}
		w.refuse(v, path, s, "an array")
		return false
	}
	lit := v.Value.(hujson.Literal)
	if lit.Kind() == 'n' {
		if def == "" {
			return false // an array item
		}
		// null is the field left unset, as dashboards export it: fastjson
		// keeps the default. Jackson sets a Java primitive to 0 instead,
		// which differs only where the default is not 0: say so there.
		switch s.shape {
		case shapeInt, shapeFloat, shapeEnum, shapeBool:
			if def != "0" && def != "false" {
				w.warn(v.StartOffset, path, "is null; read as its default "+def+", as fastjson reads it (Jackson would read 0)")
			}
		}
		return true
	}
	switch s.shape {
	case shapeInt, shapeFloat, shapeEnum:
		w.number(v, lit, s, path)
	case shapeBool:
		w.boolean(v, lit, path)
	case shapeString:
		if lit.Kind() != '"' && !s.native {
			v.Value = hujson.String(string(lit))
			w.changed = true
			w.warn(v.StartOffset, path, fmt.Sprintf("%s is not a string; read as %q, as fastjson and Jackson read it", string(lit), string(lit)))
		}
	case shapeObject:
		w.refuse(v, path, s, kindName(lit.Kind()))
	case shapeArray:
		w.refuse(v, path, s, kindName(lit.Kind()))
	}
	return false
}

func (w *walker) number(v *hujson.Value, lit hujson.Literal, s *schema, path string) {
	text := string(lit)
	quoted := false
	switch lit.Kind() {
	case '0':
	case '"':
		str := lit.String()
		if !isJSONNumber(str) {
			if s.shape != shapeEnum { // an enum's names are its decoder's
				w.refuse(v, path, s, "a string")
			}
			return
		}
		text, quoted = str, true
	default:
		if s.shape != shapeEnum {
			w.refuse(v, path, s, kindName(lit.Kind()))
		}
		return
	}
	out := text
	whole := ""
	if s.shape != shapeFloat && strings.ContainsAny(text, ".eE") {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
			if quoted {
				v.Value = hujson.Literal(text) // its decoder says why it is refused
				w.changed = true
			}
			return
		}
		out = strconv.FormatInt(int64(f), 10)
		whole = fmt.Sprintf(" (a whole number written as a decimal, read as %s)", out)
	}
	switch {
	case quoted:
		v.Value = hujson.Literal(out)
		w.changed = true
		w.warn(v.StartOffset, path, fmt.Sprintf("%s is a quoted number; read as %s%s, as fastjson and Jackson read it", string(lit), out, whole))
	case whole != "":
		v.Value = hujson.Literal(out)
		w.changed = true
		w.warn(v.StartOffset, path, fmt.Sprintf("%s is a whole number written as a decimal; read as %s, as fastjson and Jackson read it", text, out))
	}
}

func (w *walker) boolean(v *hujson.Value, lit hujson.Literal, path string) {
	var b bool
	switch lit.Kind() {
	case 't', 'f':
		return
	case '"':
		switch strings.ToLower(lit.String()) {
		case "true", "1":
			b = true
		case "false", "0":
		default:
			w.refuse(v, path, &schema{shape: shapeBool}, "a string")
			return
		}
	case '0':
		switch string(lit) {
		case "1":
			b = true
		case "0":
		default:
			w.refuse(v, path, &schema{shape: shapeBool}, "a number")
			return
		}
	}
	v.Value = hujson.Bool(b)
	w.changed = true
	w.warn(v.StartOffset, path, fmt.Sprintf("%s is not a boolean; read as %t, as fastjson reads it", string(lit), b))
}

// nearKey is a member name of an object of schema s.
type nearKey struct {
	s    *schema
	name string
}

// maxNear bounds the answers a walk remembers: a document repeating its
// unknown fields (a dashboard export's id, app, ... in each rule) asks once.
const maxNear = 1024

// typo warns on an unknown member that is near a field of s, and keeps
// it for the refusal it may cause; it returns the typo, if it is one.
func (w *walker) typo(m *hujson.ObjectMember, s *schema, path string) (typo, bool) {
	found := string(memberName(m))
	k := nearKey{s, found}
	want, ok := w.near[k]
	if !ok {
		want = s.nearField(found)
		if w.near == nil {
			w.near = map[nearKey]string{}
		}
		if len(w.near) < maxNear {
			w.near[k] = want
		}
	}
	if want == "" {
		return typo{}, false
	}
	if w.typos == nil {
		w.typos = map[string][]typo{}
	}
	t := typo{rule: w.index, found: path + found, want: path + want}
	w.typos[w.section] = append(w.typos[w.section], t)
	if len(w.warns) >= MaxWarnings {
		w.more++ // counted only: no message to build
		return t, true
	}
	w.warn(m.Name.StartOffset, path+found, typoMessage(path+want, s.defs[want]))
	return t, true
}

func (w *walker) warn(off int, path, msg string) {
	if len(w.warns) >= MaxWarnings {
		w.more++ // bounded: a warning per value of a 4 MiB file is not kept
		return
	}
	line, col := w.lines.position(w.data, off)
	w.warns = append(w.warns, Warning{Name: w.name, Line: line, Column: col, Section: w.section,
		Rule: w.index, Resource: w.resource(), Field: path, Message: msg})
}

// refuse records a value no Java parser coerces to the field's type.
func (w *walker) refuse(v *hujson.Value, path string, s *schema, found string) {
	shown := strings.TrimSpace(string(v.Pack()))
	if len(shown) > 40 {
		shown = truncate(shown, 37) + "..."
	}
	errs := w.errs[w.section]
	if n := len(errs); n > 0 && errs[n-1].Index == w.index && errs[n-1].Field == path {
		return // a duplicate key refused again: one error says it
	}
	w.errs[w.section] = append(errs, &runtime.RuleError{Index: w.index, Resource: w.resource(), Field: path,
		Reason: fmt.Sprintf("%s is %s, want %s", shown, found, s.want())})
}

func (s *schema) want() string {
	switch s.shape {
	case shapeInt, shapeFloat, shapeEnum:
		return "a number"
	case shapeBool:
		return "true or false"
	case shapeString:
		return "a string"
	case shapeArray:
		return "an array"
	}
	return "an object"
}

func kindName(k hujson.Kind) string {
	switch k {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a number"
}

// jsonNumber is RFC 8259's number: no NaN, no Infinity, no hex, no blanks.
var jsonNumber = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)

func isJSONNumber(s string) bool { return len(s) <= 64 && jsonNumber.MatchString(s) }
