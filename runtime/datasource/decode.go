package datasource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// utf8BOM is what some Windows editors put in front of UTF-8 text. Java's
// readers keep it and fastjson then fails; we skip it.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// checkText refuses what is not a JSON text worth parsing: invalid UTF-8
// (encoding/json would silently turn it into U+FFFD inside strings, so a
// resource name could change without anyone noticing) and empty documents
// (an emptied or truncated-to-zero file must never read as "no rules").
func checkText(name string, data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if !utf8.Valid(data) {
		off := firstInvalidUTF8(data)
		line, col := position(data, off)
		// The bytes around it, escaped (\xc2), never mis-decoded.
		from, to := max(0, off-12), min(len(data), off+12)
		for from > 0 && data[from]&0xC0 == 0x80 {
			from-- // start on a character
		}
		return nil, &Error{Name: name, Line: line, Column: col,
			Err: fmt.Errorf("%w: byte \\x%02x at offset %d, in %s (save the file as UTF-8)", ErrInvalidUTF8, data[off], off, strconv.Quote(string(data[from:to])))}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Name: name, Err: ErrEmpty}
	}
	return data, nil
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// syntaxError turns encoding/json's syntax error into one with a line and
// column, and a hint for the usual mistakes.
func syntaxError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &Error{Name: name, Err: err}
	}
	// Offset counts the bytes read, including the offending one.
	off := int(se.Offset) - 1
	msg := strings.TrimPrefix(se.Error(), "json: ")
	if int(se.Offset) >= len(data) && strings.Contains(msg, "end of JSON input") {
		off = len(data)
		msg += " (the file is truncated or still being written)"
	} else if off >= 0 && off < len(data) {
		switch data[off] {
		case 'N', 'I':
			msg += " (NaN and Infinity are not JSON numbers)"
		case '\'':
			msg += " (JSON strings take double quotes)"
		case '}', ']':
			msg += " (a trailing comma?)"
		}
	}
	line, col := position(data, off)
	return &Error{Name: name, Line: line, Column: col, Err: fmt.Errorf("%w: %s", ErrSyntax, msg)}
}

// splitArray checks that data is a JSON array and returns its elements.
func splitArray(name, kind string, data []byte) ([]json.RawMessage, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &Error{Name: name, Kind: kind, Err: fmt.Errorf("want a JSON array of %s rules, found %s%s",
				kind, jsonKindOf(data), combinedHint(data))}
		}
		return nil, syntaxError(name, data, err)
	}
	if elems == nil { // the document is null
		return nil, &Error{Name: name, Kind: kind, Err: fmt.Errorf("want a JSON array of %s rules, found null (write [] to clear the rules)", kind)}
	}
	return elems, nil
}

func combinedHint(data []byte) string {
	if jsonKindOf(data) == "an object" {
		return " (a combined file {\"flow\": [...], ...} is read with datasource.Combined)"
	}
	return ""
}

// jsonKindOf names the kind of the JSON value data starts with.
func jsonKindOf(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// decodeRule decodes rule i into r. A failure becomes a RuleError that
// names the field at fault: encoding/json does not say which field an
// UnmarshalJSON method (an enum's) refused, so each field is tried alone.
func decodeRule[R any](i int, el json.RawMessage, r *R) *runtime.RuleError {
	if bytes.Equal(bytes.TrimSpace(el), []byte("null")) {
		return &runtime.RuleError{Index: i, Reason: "is null, want a rule object"}
	}
	err := json.Unmarshal(el, r)
	if err == nil {
		return nil
	}
	re := &runtime.RuleError{Index: i, Resource: resourceOf(el)}
	if kind := jsonKindOf(el); kind != "an object" {
		re.Reason = "is " + kind + ", want a rule object"
		return re
	}
	fields, ferr := objectFields(el)
	if ferr == nil {
		for _, f := range fields {
			var probe R
			one, _ := json.Marshal(map[string]json.RawMessage{f.key: f.value})
			if perr := json.Unmarshal(one, &probe); perr != nil {
				re.Field = f.key
				re.Reason = describe(f.value, perr)
				return re
			}
		}
	}
	re.Reason = describe(nil, err)
	return re
}

type field struct {
	key   string
	value json.RawMessage
}

// objectFields returns the members of a JSON object in document order.
func objectFields(obj json.RawMessage) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // '{'
		return nil, err
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{key, v})
	}
	return out, nil
}

// resourceOf reads a rule's "resource" for messages, if it has a readable one.
func resourceOf(el json.RawMessage) string {
	var r struct {
		Resource any `json:"resource"`
	}
	_ = json.Unmarshal(el, &r)
	s, _ := r.Resource.(string)
	return s
}

// describe says why value was refused, without encoding/json's Go-speak
// where a plainer sentence exists. The result follows a field name:
// "count 1e400 does not fit a float64".
func describe(value json.RawMessage, err error) string {
	shown := string(value)
	if len(shown) > 40 {
		shown = truncate(shown, 37) + "..."
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if strings.HasPrefix(te.Value, "number") && isNumeric(te.Type) {
			num := strings.TrimPrefix(te.Value, "number ")
			switch te.Type.Kind() {
			case reflect.Float32, reflect.Float64:
				return fmt.Sprintf("%s does not fit a %s", num, te.Type)
			}
			if f, err := strconv.ParseFloat(num, 64); err == nil && f != math.Trunc(f) {
				return num + " is not a whole number"
			}
			return fmt.Sprintf("%s is out of range for %s", num, te.Type)
		}
		return fmt.Sprintf("%s is %s, want %s", shown, jsonKindOf(value), wantOf(te.Type))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if shown != "" && !strings.Contains(msg, strings.Trim(shown, `"`)) {
		return shown + ": " + msg
	}
	return msg
}

func isNumeric(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func wantOf(t reflect.Type) string {
	switch {
	case isNumeric(t):
		return "a number"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return "an array"
	case t.Kind() == reflect.Map || t.Kind() == reflect.Struct:
		return "an object"
	}
	return t.String()
}
