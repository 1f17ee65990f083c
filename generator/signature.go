package generator

import (
	"go/types"
	"strings"
)

const runtimePath = "github.com/sentinelgen/sentinelgen/runtime"

var errorType = types.Universe.Lookup("error").Type()

// isError reports whether t is the predeclared error type.
func isError(t types.Type) bool { return types.Identical(t, errorType) }

// isContext reports whether t is context.Context.
func isContext(t types.Type) bool { return isNamed(t, "context", "Context") }

// isBlockError reports whether t is *runtime.BlockError.
func isBlockError(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), runtimePath, "BlockError")
}

func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// blockErrorMarker stands for *runtime.BlockError in an expected
// signature, which is checked by name: the annotated package need not
// import the runtime for its other wrappers to be checked.
var blockErrorMarker = types.NewPointer(types.NewNamed(types.NewTypeName(0, types.NewPackage(runtimePath, "runtime"), "BlockError", nil), types.NewStruct(nil, nil), nil))

// shape is a signature as the checks see it: parameter and result types,
// without names or receiver.
type shape struct {
	params   []types.Type
	variadic bool
	results  []types.Type
}

func shapeOf(sig *types.Signature) shape {
	return shape{params: tupleTypes(sig.Params()), variadic: sig.Variadic(), results: tupleTypes(sig.Results())}
}

func tupleTypes(t *types.Tuple) []types.Type {
	out := make([]types.Type, t.Len())
	for i := range out {
		out[i] = t.At(i).Type()
	}
	return out
}

// matches reports whether s has exactly the types of want.
func (s shape) matches(want shape) bool {
	return s.variadic == want.variadic && typesMatch(s.params, want.params) && typesMatch(s.results, want.results)
}

func typesMatch(have, want []types.Type) bool {
	if len(have) != len(want) {
		return false
	}
	for i := range have {
		if want[i] == blockErrorMarker {
			if !isBlockError(have[i]) {
				return false
			}
			continue
		}
		if !types.Identical(have[i], want[i]) {
			return false
		}
	}
	return true
}

// String prints the shape in Go syntax, func(int64, error) (*Order, error),
// qualified relative to pkg.
func (s shape) String(pkg *types.Package) string {
	q := qualifier(pkg)
	var b strings.Builder
	b.WriteString("func(")
	for i, t := range s.params {
		if i > 0 {
			b.WriteString(", ")
		}
		if s.variadic && i == len(s.params)-1 {
			b.WriteString("...")
			t = t.(*types.Slice).Elem()
		}
		b.WriteString(types.TypeString(t, q))
	}
	b.WriteString(")")
	switch len(s.results) {
	case 0:
	case 1:
		b.WriteString(" " + types.TypeString(s.results[0], q))
	default:
		b.WriteString(" (")
		for i, t := range s.results {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(types.TypeString(t, q))
		}
		b.WriteString(")")
	}
	return b.String()
}

// Expected handler shapes, from the business method's shape (the package
// doc's table):
//
//	blockHandler     business params, then *runtime.BlockError; same results
//	fallback         business params, optionally then error; same results
//	defaultFallback  () or (error); same results
//
// A variadic business parameter is a plain slice in the shapes that add a
// parameter after it.
func blockHandlerShape(biz shape) shape {
	return shape{params: append(append([]types.Type(nil), biz.params...), blockErrorMarker), results: biz.results}
}

func fallbackShapes(biz shape) (plain, withErr shape) {
	plain = biz
	withErr = shape{params: append(append([]types.Type(nil), biz.params...), errorType), results: biz.results}
	return plain, withErr
}

func defaultFallbackShapes(biz shape) (plain, withErr shape) {
	return shape{results: biz.results}, shape{params: []types.Type{errorType}, results: biz.results}
}

// qualifier prints other packages by name, as the user writes them, and
// pkg's own types unqualified.
func qualifier(pkg *types.Package) types.Qualifier {
	return func(p *types.Package) string {
		if p == pkg || p.Path() == pkg.Path() {
			return ""
		}
		return p.Name()
	}
}
