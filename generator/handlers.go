package generator

import (
	"go/types"
	"strings"

	"github.com/sentinelgen/sentinelgen/annotations"
	"github.com/sentinelgen/sentinelgen/internal/suggest"
)

// resolveHandlers finds blockHandler, fallback and defaultFallback and
// checks their signatures against the shapes in the package doc.
func (r *resolver) resolveHandlers(w *wrapper, d *annotations.Directive) {
	biz := shapeOf(w.sig)
	if d.BlockHandler.IsSet() {
		if h, have := r.findHandler(w, d.BlockHandler, "blockHandler"); h != nil {
			if want := blockHandlerShape(biz); !have.matches(want) {
				r.mismatch(w, d.BlockHandler, "blockHandler", have, want)
			} else {
				w.block = h
			}
		}
	}
	if d.Fallback.IsSet() {
		w.fallback = r.errorHandler(w, d.Fallback, "fallback", biz, fallbackShapes)
	}
	if d.DefaultFallback.IsSet() {
		w.dflt = r.errorHandler(w, d.DefaultFallback, "defaultFallback", biz, defaultFallbackShapes)
	}
}

// errorHandler resolves a fallback or default fallback, whose signature
// for the business method biz is one of shapes: without a trailing error
// (plain) or with one (withErr). It is nil when the handler is missing or
// fits neither, which is reported.
func (r *resolver) errorHandler(w *wrapper, v annotations.Value, key string, biz shape, shapes func(shape) (plain, withErr shape)) *handler {
	h, have := r.findHandler(w, v, key)
	if h == nil {
		return nil
	}
	plain, withErr := shapes(biz)
	switch {
	case have.matches(plain):
	case have.matches(withErr):
		h.takesErr = true
	default:
		r.mismatch(w, v, key, have, plain, withErr)
		return nil
	}
	return h
}

func (r *resolver) mismatch(w *wrapper, v annotations.Value, key string, have shape, want ...shape) {
	pkg := w.fn.Pkg()
	var ws []string
	for _, s := range want {
		ws = append(ws, s.String(pkg))
	}
	r.errs.Add(v.Pos, "%s %s has the wrong signature: have %s, want %s", key, v.Text, have.String(pkg), strings.Join(ws, " or "))
}

// findHandler resolves a handler name: for a method, a method on the
// receiver, else a function of the package (called without the receiver,
// as Java's blockHandlerClass holds static methods); for a function, a
// function of the package; pkg.Func in an imported package for either. It
// returns the handler with its shape as seen from the wrapper: a generic
// function's instantiated with the wrapper's type parameters. A name that
// resolves to nothing gets a "did you mean" among the names it could be.
func (r *resolver) findHandler(w *wrapper, v annotations.Value, key string) (*handler, shape) {
	what := key + "=" + v.Text
	qualified := strings.Contains(v.Text, ".")
	if w.recv != nil && !qualified {
		// Looked up on the receiver's type as the wrapper sees it, so that
		// a generic receiver's method comes with its type parameters
		// replaced by the business method's.
		obj, _, _ := types.LookupFieldOrMethod(w.recv.Type(), true, w.fn.Pkg(), v.Text)
		if fn, ok := obj.(*types.Func); ok {
			return &handler{obj: fn, method: true}, shapeOf(fn.Type().(*types.Signature))
		}
		if _, ok := w.fn.Pkg().Scope().Lookup(v.Text).(*types.Func); !ok {
			r.errs.Add(v.Pos, "%s: %s has no method %s, and package %s no function %s%s",
				what, w.recvNamed.Obj().Name(), v.Text, w.fn.Pkg().Name(), v.Text, r.didYouMean(w, v.Text))
			return nil, shape{}
		}
	}
	if !qualified && w.fn.Pkg().Scope().Lookup(v.Text) == nil {
		r.errs.Add(v.Pos, "%s: %s is not declared in package %s%s", what, v.Text, w.fn.Pkg().Name(), r.didYouMean(w, v.Text))
		return nil, shape{}
	}
	obj := r.lookup(w, v, v.Text, what)
	if obj == nil {
		return nil, shape{}
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		r.errs.Add(v.Pos, "%s: %s is not a function", what, v.Text)
		return nil, shape{}
	}
	sig := fn.Type().(*types.Signature)
	h := &handler{obj: fn}
	if tps := sig.TypeParams(); tps.Len() > 0 {
		own := w.typeParams()
		if own.Len() != tps.Len() {
			r.errs.Add(v.Pos, "%s: %s has %d type parameters, %s has %d", what, v.Text, tps.Len(), w.fn.Name(), own.Len())
			return nil, shape{}
		}
		targs := make([]types.Type, own.Len())
		for i := range targs {
			targs[i] = own.At(i)
		}
		inst, err := types.Instantiate(nil, sig, targs, true)
		if err != nil {
			r.errs.Add(v.Pos, "%s: cannot instantiate %s with %s's type parameters: %v", what, v.Text, w.fn.Name(), err)
			return nil, shape{}
		}
		sig = inst.(*types.Signature)
		h.generic = true
	}
	return h, shapeOf(sig)
}

// didYouMean is "; did you mean X?" for the handler name nearest to name
// (the receiver's methods, for a method, and the package's functions), or
// "".
func (r *resolver) didYouMean(w *wrapper, name string) string {
	var known []string
	if w.recv != nil {
		ms := types.NewMethodSet(types.NewPointer(w.recvNamed))
		for i := range ms.Len() {
			if m := ms.At(i).Obj(); m != w.fn {
				known = append(known, m.Name())
			}
		}
	}
	scope := w.fn.Pkg().Scope()
	for _, n := range r.funcNames() {
		if f, ok := scope.Lookup(n).(*types.Func); ok && f != w.fn {
			known = append(known, n)
		}
	}
	if s := suggest.Nearest(name, known); s != "" {
		return "; did you mean " + s + "?"
	}
	return ""
}

// funcNames are the package's function names, listed once per package.
func (r *resolver) funcNames() []string {
	if r.funcs == nil {
		r.funcs = []string{}
		scope := r.pkg.Types.Scope()
		for _, n := range scope.Names() {
			if _, ok := scope.Lookup(n).(*types.Func); ok {
				r.funcs = append(r.funcs, n)
			}
		}
	}
	return r.funcs
}

// resolveIgnore resolves ignore= items: error values (errors.Is) and error
// types (errors.As).
func (r *resolver) resolveIgnore(w *wrapper, d *annotations.Directive) {
	for _, v := range d.Ignore {
		ref, ptr := strings.CutPrefix(v.Text, "*")
		obj := r.lookup(w, v, ref, "ignore")
		switch obj := obj.(type) {
		case nil:
		case *types.Var:
			if ptr {
				r.errs.Add(v.Pos, "ignore: %s is a value, not a type; write %s", ref, ref)
				continue
			}
			if !types.AssignableTo(obj.Type(), errorType) {
				r.errs.Add(v.Pos, "ignore: %s is not an error value (its type is %s)", ref, types.TypeString(obj.Type(), qualifier(r.pkg.Types)))
				continue
			}
			w.ignore = append(w.ignore, ignoreRef{value: obj})
		case *types.TypeName:
			t := obj.Type()
			if ptr {
				t = types.NewPointer(t)
			}
			if _, isIface := t.Underlying().(*types.Interface); !isIface && !types.Implements(t, errorType.Underlying().(*types.Interface)) {
				hint := ""
				if !ptr && types.Implements(types.NewPointer(t), errorType.Underlying().(*types.Interface)) {
					hint = "; *" + ref + " does"
				}
				r.errs.Add(v.Pos, "ignore: %s does not implement error%s", v.Text, hint)
				continue
			}
			if named, ok := types.Unalias(obj.Type()).(*types.Named); ok && named.TypeParams().Len() > 0 {
				r.errs.Add(v.Pos, "ignore: %s is generic; errors.As needs an instantiated type", v.Text)
				continue
			}
			w.ignore = append(w.ignore, ignoreRef{typ: t})
		default:
			r.errs.Add(v.Pos, "ignore: %s is neither an error value nor an error type", v.Text)
		}
	}
}
