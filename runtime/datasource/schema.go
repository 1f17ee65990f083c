package datasource

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/tailscale/hujson"
)

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
	// names is every field name inside a rule type's schema, nested
	// objects' included (set on the schema of the rule type only).
	names map[string]bool
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
	names := map[string]bool{}
	memberNames(s, names, map[*schema]bool{})
	s.names = names
	stored, _ := schemas.LoadOrStore(t, s)
	return stored.(*schema)
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
