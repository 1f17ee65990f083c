package datasource

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

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
// The shapes of rule fields are in schema.go, the coercions in coerce.go.

// javaText is a document as Java's parsers read it.
type javaText struct {
	std   []byte                        // standard JSON, ready for encoding/json
	warns []Warning                     // the liberties taken, in document order, up to MaxWarnings
	more  int                           // liberties past MaxWarnings, counted only
	errs  map[string]runtime.RuleErrors // values nothing can coerce, per section
	offs  map[string][]int              // where each rule starts, per section
	typos map[string][]typo             // misspelt fields, per section
}

// docSchema is the shape of a whole document: for a single kind, an
// array of its rules (section ""); for a combined one, an object of such
// arrays by section.
type docSchema struct {
	rules    *schema            // a single kind's rule
	sections map[string]*schema // a combined document's kinds' rules
	// thresholds are, per section ("" for a single kind), the fields of
	// a rule that a misspelling must not leave unset (WithThresholds).
	thresholds map[string][]string
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
	w := &walker{name: name, data: data, errs: map[string]runtime.RuleErrors{}, offs: map[string][]int{}, thresholds: doc.thresholds}
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
	out.warns, out.more, out.errs, out.offs, out.typos = warns, w.more, w.errs, w.offs, w.typos
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
