package generator

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// wrapper is one annotated function, resolved against its package's types:
// everything emission needs, already checked. Emission reads only this,
// never the directive.
type wrapper struct {
	file *ast.File
	fn   *types.Func
	sig  *types.Signature

	pos     token.Position // the directive
	namePos token.Position // wrapper=, else the directive
	declPos token.Pos      // the annotated function

	recv      *types.Var   // the receiver; nil for a function
	recvNamed *types.Named // the receiver's named type
	ptrRecv   bool

	name     string // the wrapper's name
	resource string // the resource name
	resVar   string // the package-level var holding the declared resource

	ctxParam int   // index of a leading context.Context, or -1
	args     []int // indices of the parameters hot-parameter rules see
	hasErr   bool  // the last result is an error
	batch    int   // tokens per call
	traffic  annotations.Traffic
	resType  string // the runtime's ResourceType constant: Common, Web, ...

	// lockSafe: a result holds a lock (a sync.Mutex, say), which go vet's
	// copylocks check forbids copying, so results are never copied
	// through locals (see wrapper.go).
	lockSafe bool

	block, fallback, dflt *handler
	ignore                []ignoreRef
}

// handler is a resolved blockHandler, fallback or defaultFallback.
type handler struct {
	obj      *types.Func
	method   bool // called on the wrapper's receiver
	takesErr bool // fallback or defaultFallback with a trailing error parameter
	generic  bool // a generic function, instantiated with the wrapper's type parameters
}

// ignoreRef is one ignore= item: an error value matched with errors.Is, or
// an error type matched with errors.As.
type ignoreRef struct {
	value *types.Var // set for a value
	typ   types.Type // set for a type: the errors.As target's element type
}

func (w *wrapper) params() *types.Tuple  { return w.sig.Params() }
func (w *wrapper) results() *types.Tuple { return w.sig.Results() }

// typeParams are the type parameters the wrapper declares: the receiver's
// for a method, the function's own for a function.
func (w *wrapper) typeParams() *types.TypeParamList {
	if w.recv != nil {
		return w.sig.RecvTypeParams()
	}
	return w.sig.TypeParams()
}

// typeParamNames are the names of the type parameters the wrapper
// declares, which shadow package-level names and imports inside it.
func typeParamNames(w *wrapper) map[string]bool {
	names := map[string]bool{}
	if tps := w.typeParams(); tps != nil {
		for tp := range tps.TypeParams() {
			names[tp.Obj().Name()] = true
		}
	}
	return names
}
