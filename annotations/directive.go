package annotations

import (
	"go/ast"
	"go/token"
)

// Prefix starts every directive line that protects a function or method.
const Prefix = "//sentinel:resource"

// DecoratePrefix starts the directive that protects, method by method, an
// implementation of an interface: it annotates the interface type.
const DecoratePrefix = "//sentinel:decorate"

// Value is one token of a directive: a key's value, or one item of a comma
// list, with where it starts in the source.
type Value struct {
	Text string
	Pos  token.Position
}

// IsSet reports whether the directive gave the value.
func (v Value) IsSet() bool { return v.Pos.IsValid() }

// Traffic is the directive's traffic= key.
type Traffic uint8

const (
	Outbound Traffic = iota // traffic=out, the default (Java's EntryType.OUT)
	Inbound                 // traffic=in: system rules apply
)

// ResourceType is a name type= accepts and the runtime constant
// (runtime.ResourceType) a wrapper declares for it.
type ResourceType struct {
	Name  string // as written in the directive: web
	Const string // the runtime's constant: Web
}

// ResourceTypes are the names type= accepts, in the runtime's order
// (runtime.ParseResourceType reads the same names). The first is the
// default.
var ResourceTypes = []ResourceType{
	{"common", "Common"}, {"web", "Web"}, {"rpc", "RPC"}, {"gateway", "APIGateway"},
	{"db", "DBSQL"}, {"cache", "Cache"}, {"mq", "MQ"},
}

func resourceTypeNames() []string {
	out := make([]string, len(ResourceTypes))
	for i, rt := range ResourceTypes {
		out[i] = rt.Name
	}
	return out
}

// Directive is one parsed //sentinel:resource or //sentinel:decorate
// line, with its defaults filled in. A name-valued key the directive leaves out keeps its zero
// Value (IsSet false), so that the generator can tell "defaulted" from
// "given".
type Directive struct {
	Pos  token.Position // the directive's first slash
	Func *ast.FuncDecl  // the function it annotates; nil from ParseLine

	// Decorate marks a //sentinel:decorate line. From ParseFile, TypeDecl is
	// the type declaration it annotates and Methods the //sentinel:resource
	// directives on its interface's methods, which override its keys.
	Decorate bool
	TypeDecl *ast.TypeSpec
	Methods  []*Directive
	// Method is the interface method a //sentinel:resource directive of
	// Methods annotates (Func is nil then).
	Method *ast.Field
	// Given holds where each key the line gives starts, so that a method's
	// directive overrides exactly the keys it gives.
	Given map[string]token.Position

	Name            Value
	BlockHandler    Value
	Fallback        Value
	DefaultFallback Value
	Wrapper         Value
	Ignore          []Value // error values (ErrNotFound, io.EOF) or types (*NotFoundError)
	Traffic         Traffic
	Type            ResourceType // ResourceTypes[0] (common) when not given
	// Args are the parameters hot-parameter rules see, by name: nil when
	// args= is not given (every parameter but a leading context.Context),
	// empty but not nil for args="" (none).
	Args  []Value
	Batch int // tokens per call; 1 when not given
	// Exclude are the methods a //sentinel:decorate passes through
	// unprotected.
	Exclude []Value

	// Bad is set when the line had problems (reported by the parser):
	// checking it further would only report their consequences.
	Bad bool
}

// Prefix is the directive's own: Prefix or DecoratePrefix.
func (d *Directive) Prefix() string {
	if d.Decorate {
		return DecoratePrefix
	}
	return Prefix
}
