package annotations

import (
	"go/ast"
	"go/token"
)

// Prefix starts every directive line.
const Prefix = "//sentinel:resource"

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

// ResourceTypes are the names type= accepts, in the runtime's order
// (runtime.ParseResourceType reads the same names).
var ResourceTypes = []string{"common", "web", "rpc", "gateway", "db", "cache", "mq"}

// Directive is one parsed //sentinel:resource line. A key the directive
// leaves out keeps its zero Value (IsSet false), so that the generator can
// tell "defaulted" from "given".
type Directive struct {
	Pos  token.Position // the directive's first slash
	Func *ast.FuncDecl  // the function it annotates; nil from ParseLine

	Name            Value
	BlockHandler    Value
	Fallback        Value
	DefaultFallback Value
	Ignore          []Value // error values (ErrNotFound, io.EOF) or types (*NotFoundError)
	Traffic         Traffic
	TrafficValue    Value
	Type            Value   // one of ResourceTypes; "common" when unset
	Args            []Value // parameter names; nil: the default list
	ArgsSet         bool
	Batch           int // tokens per call; 1 when unset
	BatchValue      Value
	Wrapper         Value

	// Keys holds every key as written, in order, with its position.
	Keys []Value

	// Bad is set when the line had problems (reported by the parser):
	// checking it further would only report their consequences.
	Bad bool
}

// ResourceType returns type= or its default.
func (d *Directive) ResourceType() string {
	if d.Type.IsSet() {
		return d.Type.Text
	}
	return "common"
}
