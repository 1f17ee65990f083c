package datasource

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tailscale/hujson"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// This file reads a rule document as Java's parsers read it, and turns it
// into standard JSON for encoding/json, with a warning for every liberty
// taken. Java's file, Nacos, Redis and Consul data sources parse with
// fastjson; Spring Cloud Alibaba's converters with Jackson. Between them
// they accept, and so this package accepts:
//
//   - `//` and `/* */` comments, and a comma before `]` or `}` (fastjson);
//     hujson parses them and blanks them out, byte for byte, so positions
//     in errors stay those of the original text;
//   - text after the document (Jackson reads the first value and stops);
//   - a quoted number or boolean where a number or boolean is wanted
//     ("count": "5", "clusterMode": "false"), a number or boolean where a
//     string is wanted ("resource": 7), 0 or 1 where a boolean is wanted;
//   - a whole decimal for an integer field ("timeWindow": 10.0);
//   - null for a field: the field keeps its default, as fastjson keeps it
//     ("grade": null is QPS); a warning where Jackson's 0 would differ.
//
// What neither parser makes sense of stays refused: NaN and Infinity,
// values of a type that cannot be coerced ("count": "ten", "count": true),
// fractions for integer fields, documents that are not rule documents.

// shape is what a rule field takes.
type shape uint8

const (
	shapeAny    shape = iota // not a rule field: left to the decoder
	shapeInt                 // an integer; bits says its size
	shapeFloat               // a number
	shapeEnum                // a numeric code or a readable name
	shapeBool                // true or false
	shapeString              // a string
	shapeObject              // an object with fields
	shapeArray               // an array of elem
)

// schema is the JSON shape of a Go rule type, read from its fields and
// json tags once per type.
type schema struct {
	shape  shape
	bits   int  // shapeInt: 8..64
	native bool // shapeString: the type itself decodes numbers and booleans here
	fields map[string]*schema
	folded map[string]*schema // by strings.ToLower, as encoding/json matches names
	defs   map[string]string  // shapeObject: each field's default, as JSON
	elem   *schema
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	schemas         sync.Map // reflect.Type -> *schema
)

// schemaFor returns the schema of rule type t (a struct).
func schemaFor(t reflect.Type) *schema {
	if s, ok := schemas.Load(t); ok {
		return s.(*schema)
	}
	s := buildSchema(t, map[reflect.Type]*schema{})
	schemas.Store(t, s)
	return s
}

func buildSchema(t reflect.Type, seen map[reflect.Type]*schema) *schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := seen[t]; ok {
		return s
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			return &schema{shape: shapeEnum}
		}
		return &schema{shape: shapeInt, bits: t.Bits()}
	case reflect.Float32, reflect.Float64:
		return &schema{shape: shapeFloat}
	case reflect.Bool:
		return &schema{shape: shapeBool}
	case reflect.String:
		return &schema{shape: shapeString}
	case reflect.Slice, reflect.Array:
		s := &schema{shape: shapeArray}
		seen[t] = s
		s.elem = buildSchema(t.Elem(), seen)
		return s
	case reflect.Struct:
	default:
		return &schema{shape: shapeAny}
	}
	s := &schema{shape: shapeObject, fields: map[string]*schema{}, folded: map[string]*schema{}, defs: map[string]string{}}
	seen[t] = s
	// The defaults a rule type fills in for absent fields (its
	// UnmarshalJSON's), for the message on a null field.
	def := reflect.New(t)
	_ = json.Unmarshal([]byte("{}"), def.Interface())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs := buildSchema(f.Type, seen)
		if fs.shape == shapeString {
			// A type that reads numbers into this string itself (a
			// hot-parameter item's object) needs no coercion here.
			probe, _ := json.Marshal(map[string]int{name: 1})
			if json.Unmarshal(probe, reflect.New(t).Interface()) == nil {
				fs = &schema{shape: shapeString, native: true}
			}
		}
		s.fields[name] = fs
		s.folded[strings.ToLower(name)] = fs
		if b, err := json.Marshal(def.Elem().Field(i).Interface()); err == nil {
			s.defs[name] = string(b)
		}
	}
	return s
}

// field finds a member's schema as encoding/json finds its field: the
// exact name, else the same name in another case. It allocates nothing.
func (s *schema) field(name []byte) (*schema, string) {
	if f, ok := s.fields[string(name)]; ok {
		for n := range s.fields {
			if n == string(name) {
				return f, n
			}
		}
	}
	for n, f := range s.fields {
		if bytes.EqualFold([]byte(n), name) {
			return f, n
		}
	}
	return nil, ""
}

// memberName is an object member's name, unquoted; without escapes (the
// usual case) it is the document's own bytes.
func memberName(m *hujson.ObjectMember) []byte {
	lit := m.Name.Value.(hujson.Literal)
	if len(lit) >= 2 && bytes.IndexByte(lit, '\\') < 0 {
		return lit[1 : len(lit)-1]
	}
	return []byte(lit.String())
}

// javaText is a document as Java's parsers read it.
type javaText struct {
	std   []byte                        // standard JSON, ready for encoding/json
	warns []Warning                     // the liberties taken, in document order, up to MaxWarnings
	more  int                           // liberties past MaxWarnings, counted only
	errs  map[string]runtime.RuleErrors // values nothing can coerce, per section
	offs  map[string][]int              // where each rule starts, per section
}

// docSchema is the shape of a whole document: for a single kind, an
// array of its rules (section ""); for a combined one, an object of such
// arrays by section.
type docSchema struct {
	rules    *schema            // a single kind's rule
	sections map[string]*schema // a combined document's kinds' rules
}

// readJava parses data (UTF-8, BOM removed) with comments, trailing
// commas and trailing text, coerces what Java coerces, and returns
// standard JSON. A syntax error is an *Error with the line and column of
// the original text.
func readJava(name string, data []byte, doc docSchema) (*javaText, error) {
	if off := tooDeep(data); off >= 0 {
		line, col := position(data, off)
		return nil, &Error{Name: name, Line: line, Column: col,
			Err: fmt.Errorf("%w: nested more than %d deep", ErrSyntax, maxDepth)}
	}
	// hujson aliases and Standardize overwrites its input: work on a copy,
	// ended by a newline, which a last line comment needs in hujson's
	// grammar (fastjson ends it at the end of the text too).
	buf := append(bytes.Clone(data), '\n')
	root, err := hujson.Parse(buf)
	out := &javaText{}
	if err != nil {
		off, msg := hujsonError(data, err)
		if !strings.HasSuffix(msg, "after top-level value") {
			return nil, syntaxErrorAt(name, data, off, msg)
		}
		// Text after the first value: Jackson ignores it; so do we, loudly.
		buf = buf[:off]
		if root, err = hujson.Parse(buf); err != nil {
			off, msg := hujsonError(data, err)
			return nil, syntaxErrorAt(name, data, off, msg)
		}
		line, col := position(data, off)
		out.warns = append(out.warns, Warning{Name: name, Line: line, Column: col, Rule: -1,
			Message: fmt.Sprintf("text after the document is ignored (%s): Jackson, as Spring Cloud Alibaba reads files, stops after the first JSON value; fastjson refuses the document",
				snippet(data[off:]))})
	}
	if !root.IsStandard() {
		out.warns = append(out.warns, nonStandard(name, data[:min(len(buf), len(data))], &root)...)
	}
	w := &walker{name: name, data: data, errs: map[string]runtime.RuleErrors{}, offs: map[string][]int{}}
	switch {
	case doc.rules != nil:
		w.rules("", &root, doc.rules)
	case doc.sections != nil:
		if obj, ok := root.Value.(*hujson.Object); ok {
			for i := range obj.Members {
				m := &obj.Members[i]
				if s, ok := doc.sections[string(memberName(m))]; ok {
					w.rules(string(memberName(m)), &m.Value, s)
				}
			}
		}
	}
	warns := append(out.warns, w.warns...)
	sortWarnings(warns)
	out.warns, out.more, out.errs, out.offs = warns, w.more, w.errs, w.offs
	switch {
	case !w.changed && !w.dropped && len(out.warns) == 0:
		out.std = data // plain JSON, as written: no copy
	default:
		if w.dropped {
			root.Standardize() // a dropped last member must leave no trailing comma
		}
		out.std = root.Pack()
	}
	return out, nil
}

// maxDepth bounds nesting, as encoding/json bounds it: hujson parses
// recursively, and a file of 4 MiB of '[' must not exhaust the stack.
const maxDepth = 10000

// tooDeep returns the offset where data nests deeper than maxDepth, or -1.
// Brackets inside strings do not count; inside comments they may, which
// only errs on the side of refusing.
func tooDeep(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > maxDepth {
				return i
			}
		case ']', '}':
			depth--
		}
	}
	return -1
}

// plainJSON reports whether data is standard JSON in which nothing asks
// for readJava: no comments, trailing commas or trailing text, no quoted
// number or null after a colon, no member named "rule" or "paramItem".
// What else readJava coerces (a whole decimal for an integer, a quoted
// boolean, a number for a string) fails encoding/json, which then falls
// back to readJava. A false "no" costs only the slower path.
func plainJSON(data []byte) bool {
	if !json.Valid(data) || bytes.Contains(data, []byte(`"rule"`)) || bytes.Contains(data, []byte(`"paramItem"`)) {
		return false
	}
	for i := bytes.IndexByte(data, ':'); i >= 0; {
		j := i + 1
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		if j < len(data) {
			switch c := data[j]; {
			case c == 'n':
				return false
			case c == '"' && j+1 < len(data) && (data[j+1] == '-' || data[j+1] == '.' || data[j+1] >= '0' && data[j+1] <= '9'):
				return false
			}
		}
		next := bytes.IndexByte(data[j:], ':')
		if next < 0 {
			break
		}
		i = j + next
	}
	return true
}

// nonStandard warns once for comments and once for trailing commas, at the
// first of each: Standardize blanks exactly those bytes, so the bytes it
// changes are where they are.
func nonStandard(name string, orig []byte, root *hujson.Value) []Warning {
	root.Standardize()
	std := root.Pack()
	var out []Warning
	comments, commas := 0, 0
	firstComment, firstComma := -1, -1
	for i := 0; i < len(std) && i < len(orig); i++ {
		if std[i] == orig[i] {
			continue
		}
		switch {
		case orig[i] == ',' && (i == 0 || std[i-1] == orig[i-1]):
			commas++
			if firstComma < 0 {
				firstComma = i
			}
		case orig[i] == '/' && (i == 0 || std[i-1] == orig[i-1] || orig[i-1] == '\n'):
			comments++
			if firstComment < 0 {
				firstComment = i
			}
		}
	}
	if comments > 0 {
		line, col := position(orig, firstComment)
		out = append(out, Warning{Name: name, Line: line, Column: col, Rule: -1,
			Message: fmt.Sprintf("%s: JSON has no comments; fastjson skips them (so does this runtime), Jackson refuses the document", plural(comments, "comment"))})
	}
	if commas > 0 {
		line, col := position(orig, firstComma)
		out = append(out, Warning{Name: name, Line: line, Column: col, Rule: -1,
			Message: fmt.Sprintf("%s before ] or }: fastjson accepts it (so does this runtime), Jackson refuses the document", plural(commas, "trailing comma"))})
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "a " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// snippet shows the start of text in a message, escaped.
func snippet(text []byte) string {
	text = bytes.TrimSpace(text)
	const keep = 24
	if len(text) > keep {
		return strconv.Quote(truncate(string(text), keep)) + "..."
	}
	return strconv.Quote(string(text))
}

// truncate cuts s to at most n bytes, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

var hujsonPos = regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)

// hujsonError reads hujson's "line L, column C: msg" back into a byte offset.
func hujsonError(data []byte, err error) (off int, msg string) {
	m := hujsonPos.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, err.Error()
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	off = 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return min(off+col-1, len(data)), m[3]
}

// syntaxErrorAt is a syntax error at byte off of data, with a hint for the
// usual mistakes.
func syntaxErrorAt(name string, data []byte, off int, msg string) error {
	if v, ok := strings.CutPrefix(msg, "invalid literal: "); ok {
		msg = "invalid value " + v
	}
	switch {
	case strings.HasSuffix(msg, "unexpected EOF") || off >= len(data):
		off = len(data)
		msg = "unexpected end of JSON input (the file is truncated or still being written)"
	case data[off] == 'N' || data[off] == 'I' || bytes.HasPrefix(data[off:], []byte("-I")):
		msg += " (NaN and Infinity are not JSON numbers)"
	case data[off] == '\'':
		msg += " (JSON strings take double quotes)"
	}
	line, col := position(data, off)
	return &Error{Name: name, Line: line, Column: col, Err: fmt.Errorf("%w: %s", ErrSyntax, msg)}
}

// walker coerces the rules of a document in place.
type walker struct {
	name  string
	data  []byte
	warns []Warning
	errs  map[string]runtime.RuleErrors
	offs  map[string][]int

	lines   lineIndex
	more    int  // warnings past MaxWarnings, counted only
	changed bool // a value was rewritten
	dropped bool // a member was dropped

	// the rule being walked
	section string
	index   int
	obj     *hujson.Object
}

// resource is the walked rule's resource, for messages.
func (w *walker) resource() string {
	if w.obj == nil {
		return ""
	}
	for i := range w.obj.Members {
		m := &w.obj.Members[i]
		if lit, ok := m.Value.Value.(hujson.Literal); ok && string(memberName(m)) == "resource" && lit.Kind() == '"' {
			return lit.String()
		}
	}
	return ""
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
		w.section, w.index, w.obj = section, i, obj
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
	kept := obj.Members[:0]
	for _, m := range obj.Members {
		fs, name := s.field(memberName(&m))
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
	w.errs[w.section] = append(w.errs[w.section], &runtime.RuleError{Index: w.index, Resource: w.resource(), Field: path,
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

// lineIndex finds the line and column of an offset in O(log lines), built
// on first use: a document may warn about every one of its values.
type lineIndex []int

func (li *lineIndex) position(data []byte, off int) (line, col int) {
	if *li == nil {
		starts := []int{0}
		for i, c := range data {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		*li = starts
	}
	off = max(0, min(off, len(data)))
	l := sort.SearchInts(*li, off+1) - 1
	return l + 1, off - (*li)[l] + 1
}

// sortWarnings puts warnings in document order (stable for equal places).
func sortWarnings(ws []Warning) {
	sort.SliceStable(ws, func(i, j int) bool {
		if ws[i].Line != ws[j].Line {
			return ws[i].Line < ws[j].Line
		}
		return ws[i].Column < ws[j].Column
	})
}

// MaxWarnings is how many warnings a load keeps; the rest are counted in
// one last warning, so a file with a quoted number in each of its 100,000
// rules costs a bounded report.
const MaxWarnings = 100

// capWarnings keeps the first MaxWarnings and says how many more there
// were, counting more that were never kept.
func capWarnings(name string, ws []Warning, more int) []Warning {
	if len(ws) > MaxWarnings {
		more += len(ws) - MaxWarnings
		ws = ws[:MaxWarnings:MaxWarnings]
	}
	if more == 0 {
		return ws
	}
	return append(ws, Warning{Name: name, Rule: -1, Message: fmt.Sprintf("and %d more warnings", more)})
}
