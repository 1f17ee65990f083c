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

	name     string   // the wrapper's name
	named    bool     // given by wrapper=, not derived from the method's
	tparams  []string // the names the wrapper gives its type parameters (typeParams order)
	resource string   // the resource name
	resVar   string   // the package-level var holding the declared resource

	ctxParam int   // index of a leading context.Context, or -1
	args     []int // indices of the parameters hot-parameter rules see
	hasErr   bool  // the last result is an error
	batch    int   // tokens per call
	traffic  annotations.Traffic
	resType  string // the runtime's ResourceType constant: Common, Web, ...

	// lockSafe: a result holds a lock (a sync.Mutex, say), which go vet's
	// copylocks check forbids copying, or a type declared per build,
	// which may hold one or have no literal zero value in another build
	// (see perbuild.go), so results are never copied through locals nor
	// written as literals (see wrapper.go).
	lockSafe bool

	// arrayLens are the signature's array lengths as the source spells
	// them, names resolved by info (see arraylen.go).
	arrayLens map[*types.Array]ast.Expr
	info      *types.Info

	block, fallback, dflt *handler
	ignore                []ignoreRef

	// deco is set for a method of a //sentinel:decorate interface: fn is
	// the interface's method, called on the decorated value, and recv is
	// nil. excluded (exclude=) passes the call through, with no resource.
	deco     *decoration
	excluded bool
}

// handler is a resolved blockHandler, fallback or defaultFallback. A
// decorated interface's handler is a variable of the interface's type
// (value), or a function given the cause and returning one (obj with
// takesErr), whose method of the same name is called.
type handler struct {
	obj      *types.Func
	value    *types.Var
	method   bool // called on the wrapper's receiver
	takesErr bool // fallback or defaultFallback with a trailing error parameter; a decorated interface's func(error)
	generic  bool // a generic function, instantiated with the wrapper's type parameters
}

// ref is the handler's declaration: its function or variable.
func (h *handler) ref() types.Object {
	if h.value != nil {
		return h.value
	}
	return h.obj
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
	if w.deco != nil {
		return w.deco.tparams
	}
	if w.recv != nil {
		return w.sig.RecvTypeParams()
	}
	return w.sig.TypeParams()
}

// typeParamNames are the names of the type parameters the wrapper
// declares, which shadow package-level names and imports inside it.
func typeParamNames(w *wrapper) map[string]bool {
	names := map[string]bool{}
	for i := range w.typeParams().Len() {
		names[w.typeParamName(i)] = true
	}
	return names
}

// typeParamName is the name the wrapper gives its i-th type parameter:
// the source's, unless that would shadow what the wrapper's body calls
// (see typeParamNamesAvoiding).
func (w *wrapper) typeParamName(i int) string {
	if w.tparams != nil {
		return w.tparams[i]
	}
	return w.typeParams().At(i).Obj().Name()
}

// tparamIndex is the index of tp among the wrapper's type parameters, or
// -1.
func (w *wrapper) tparamIndex(tp *types.TypeParam) int {
	tps := w.typeParams()
	for i := range tps.Len() {
		if tps.At(i) == tp {
			return i
		}
	}
	return -1
}

// bodyRefs are the package-level names a wrapper's body refers to
// unqualified: its resource variable, the annotated function and the
// handlers that are functions of the package, and ignore= values and
// types of the package. A type parameter of the wrapper must not shadow
// them.
func (w *wrapper) bodyRefs() []string {
	refs := []string{w.resVar}
	own := w.fn.Pkg()
	if w.deco != nil {
		own = w.deco.obj.Pkg()
	}
	local := func(obj types.Object) bool { return obj.Pkg() == own }
	if w.recv == nil && w.deco == nil {
		refs = append(refs, w.fn.Name())
	}
	for _, h := range []*handler{w.block, w.fallback, w.dflt} {
		if h != nil && !h.method && local(h.ref()) {
			refs = append(refs, h.ref().Name())
		}
	}
	for _, ig := range w.ignore {
		if ig.value != nil && local(ig.value) {
			refs = append(refs, ig.value.Name())
		}
		if ig.typ != nil {
			t := ig.typ
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if n, ok := types.Unalias(t).(*types.Named); ok && local(n.Obj()) {
				refs = append(refs, n.Obj().Name())
			}
		}
	}
	return refs
}
