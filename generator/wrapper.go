package generator

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"
)

// locals are one wrapper's identifiers: its receiver, parameters, results
// and the locals it declares, none shadowing what its body refers to.
type locals struct {
	recv    string
	params  []string
	entry   string // e
	block   string // b
	results []string
	panicV  string
	nested  string // a BlockError returned by the business method
}

func (g *fileGen) locals(w *wrapper) locals {
	n := newNamer(g.pkgNames, g.aliasNames, universe)
	for name := range typeParamNames(w) {
		n.taken[name] = true
	}
	var l locals
	name := func(v *types.Var, base string) string {
		if s := v.Name(); s != "" && s != "_" {
			return n.fresh(s)
		}
		return n.fresh(base)
	}
	switch {
	case w.recv != nil:
		l.recv = name(w.recv, "recv")
	case w.deco != nil:
		l.recv = n.fresh("d")
	}
	for i := range w.params().Len() {
		l.params = append(l.params, name(w.params().At(i), fmt.Sprintf("p%d", i)))
	}
	l.entry, l.block, l.panicV, l.nested = n.fresh("e"), n.fresh("b"), n.fresh("p"), n.fresh("nb")
	for i := range w.results().Len() {
		l.results = append(l.results, n.fresh(fmt.Sprintf("r%d", i)))
	}
	return l
}

// wrapper builds one wrapper function. Its body takes seven steps: 1. the
// context; 2. the entry; 3. when blocked, the block handlers; 4. the
// business call; 5. a business error traced and handed to the fallback;
// 6. the exit, deferred; 7. a panic recorded as the call's error.
func (g *fileGen) wrapper(w *wrapper) jen.Code {
	g.cur = w // typeExpr writes w's type parameters by w's names for them
	defer func() { g.cur = nil }()
	l := g.locals(w)
	var fn *jen.Statement
	switch {
	case w.excluded:
		fn = jen.Commentf("%s calls next's %s, unprotected (exclude=).", w.name, w.fn.Name()).Line().Func()
	case w.deco != nil:
		fn = jen.Commentf("%s calls next's %s as the Sentinel resource %q.", w.name, w.fn.Name(), w.resource).Line().Func()
	default:
		fn = jen.Commentf("%s calls %s as the Sentinel resource %q.", w.name, w.fn.Name(), w.resource).Line().Func()
	}
	switch {
	case w.recv != nil:
		fn.Params(jen.Id(l.recv).Add(g.receiverType(w)))
	case w.deco != nil:
		fn.Params(jen.Id(l.recv).Op("*").Add(g.decoratedType(w.deco, w.deco.impl)))
	}
	fn.Id(w.name)
	if w.recv == nil && w.sig.TypeParams().Len() > 0 {
		fn.Types(g.typeParamDecls(w)...)
	}
	params := make([]jen.Code, len(l.params))
	for i, p := range l.params {
		t := w.params().At(i).Type()
		if w.sig.Variadic() && i == len(l.params)-1 {
			params[i] = jen.Id(p).Op("...").Add(g.typeExpr(t.(*types.Slice).Elem()))
		} else {
			params[i] = jen.Id(p).Add(g.typeExpr(t))
		}
	}
	var named []string
	if w.lockSafe && w.hasErr {
		named = l.results // returned bare: never copied from a local
	}
	fn.Params(params...).Add(g.results(w.results(), named))
	if w.excluded {
		call := g.callee(w, l, w.fn, false).Call(g.callArgs(w, l, nil, false)...)
		if w.results().Len() == 0 {
			return fn.Block(call)
		}
		return fn.Block(jen.Return(call))
	}
	return fn.BlockFunc(func(body *jen.Group) { g.body(body, w, l) })
}

func (g *fileGen) receiverType(w *wrapper) jen.Code {
	t := jen.Id(w.recvNamed.Obj().Name())
	if tps := w.sig.RecvTypeParams(); tps.Len() > 0 {
		ids := make([]jen.Code, tps.Len())
		for i := range ids {
			ids[i] = jen.Id(w.typeParamName(i))
		}
		t.Types(ids...)
	}
	if w.ptrRecv {
		return jen.Op("*").Add(t)
	}
	return t
}

func (g *fileGen) typeParamDecls(w *wrapper) []jen.Code {
	tps := w.sig.TypeParams()
	out := make([]jen.Code, tps.Len())
	for i := range out {
		out[i] = jen.Id(w.typeParamName(i)).Add(g.typeExpr(tps.At(i).Constraint()))
	}
	return out
}

func (g *fileGen) body(body *jen.Group, w *wrapper, l locals) {
	rt := func(name string) *jen.Statement { return g.qual(runtimePath, name) }

	// 1. The context: a leading context.Context, else Background.
	var ctx jen.Code = g.qual("context", "Background").Call()
	if w.ctxParam >= 0 {
		ctx = jen.Id(l.params[w.ctxParam])
	}

	// 2. The entry. Arguments are boxed for hot-parameter rules only when
	// one applies, so that a wrapper allocates nothing of its own.
	var opts []jen.Code
	if w.batch > 1 {
		opts = append(opts, rt("WithBatchCount").Call(jen.Lit(w.batch)))
	}
	// A method without a context hands nested calls no entry to link to:
	// its call is a Ticket, whose entry is reused once it exits, so that
	// the wrapper allocates nothing at all. A method with one passes the
	// entry's context on, which may outlive the call: its entry is its own.
	enter, entryType := "Entry", jen.Op("*").Add(rt("SentinelEntry"))
	if w.ctxParam < 0 {
		enter, entryType = "Enter", rt("Ticket")
	}
	entry := func(extra ...jen.Code) *jen.Statement {
		return jen.Id(w.resVar).Dot(enter).Call(append(append([]jen.Code{ctx}, extra...), opts...)...)
	}
	if len(w.args) == 0 {
		body.List(jen.Id(l.entry), jen.Id(l.block)).Op(":=").Add(entry())
	} else {
		boxed := make([]jen.Code, len(w.args))
		for i, a := range w.args {
			boxed[i] = jen.Id(l.params[a])
		}
		body.Var().Defs(
			jen.Id(l.entry).Add(entryType),
			jen.Id(l.block).Op("*").Add(rt("BlockError")),
		)
		body.If(jen.Id(w.resVar).Dot("NeedsArgs").Call()).Block(
			jen.List(jen.Id(l.entry), jen.Id(l.block)).Op("=").Add(entry(rt("WithArgs").Call(boxed...))),
		).Else().Block(
			jen.List(jen.Id(l.entry), jen.Id(l.block)).Op("=").Add(entry()),
		)
	}

	// 3. Blocked: blockHandler, else fallback, else defaultFallback, else
	// the zero values and the BlockError.
	body.If(jen.Id(l.block).Op("!=").Nil()).BlockFunc(func(blk *jen.Group) { g.blocked(blk, w, l) })

	// 6, 7. One deferred exit covers every admitted path, a panicking one
	// included: the panic is recorded as the call's error, then goes on.
	body.Defer().Func().Params().Block(
		jen.If(jen.Id(l.panicV).Op(":=").Recover(), jen.Id(l.panicV).Op("!=").Nil()).Block(
			jen.Id(l.entry).Dot("Exit").Call(rt("WithError").Call(
				g.qual("fmt", "Errorf").Call(jen.Lit("panic: %v"), jen.Id(l.panicV)))),
			jen.Panic(jen.Id(l.panicV)),
		),
		jen.Id(l.entry).Dot("Exit").Call(),
	).Call()

	// 4. The business call, with the entry's context in place of ctx so
	// that nested resources become this call's children.
	args := g.callArgs(w, l, jen.Id(l.entry).Dot("Context").Call(), false)
	call := g.callee(w, l, w.fn, w.recv != nil).Call(args...)
	if w.results().Len() == 0 {
		body.Add(call)
		return
	}
	if w.lockSafe && !w.hasErr {
		body.Return(call) // nothing to look at: the results go straight back
		return
	}
	res := make([]jen.Code, len(l.results))
	for i, r := range l.results {
		res[i] = jen.Id(r)
	}
	if w.lockSafe {
		body.List(res...).Op("=").Add(call) // into the named results
	} else {
		body.List(res...).Op(":=").Add(call)
	}

	// 5. A business error: a BlockError from a nested resource goes to
	// the block handlers, as Java's aspect catches a BlockException thrown
	// inside the method; any other error that is not ignored is traced,
	// then handed to the fallback.
	if w.hasErr {
		errV := jen.Id(l.results[len(l.results)-1])
		body.If(jen.Add(errV).Op("!=").Nil()).BlockFunc(func(blk *jen.Group) {
			ctx := jen.Id(l.entry).Dot("Context").Call()
			if call := g.blockHandlerCall(w, l, ctx, jen.Id(l.nested)); call != nil {
				blk.Var().Id(l.nested).Op("*").Add(rt("BlockError"))
				blk.If(g.qual("errors", "As").Call(errV, jen.Op("&").Id(l.nested))).Block(jen.Return(call))
			}
			var cond *jen.Statement
			for _, ig := range w.ignore {
				var test jen.Code
				if ig.value != nil {
					test = g.qual("errors", "Is").Call(errV, g.pkgRef(ig.value.Pkg(), ig.value.Name()))
				} else {
					test = g.qual("errors", "As").Call(errV, jen.New(g.typeExpr(ig.typ)))
				}
				if cond == nil {
					cond = jen.Op("!").Add(test)
				} else {
					cond.Op("&&").Op("!").Add(test)
				}
			}
			traced := []jen.Code{jen.Id(l.entry).Dot("SetError").Call(errV)}
			if h := g.errorHandlerCall(w, l, errV); h != nil {
				traced = append(traced, jen.Return(h))
			}
			if cond == nil {
				for _, c := range traced {
					blk.Add(c)
				}
			} else {
				blk.If(cond).Block(traced...)
			}
		})
	}
	if w.lockSafe {
		body.Return()
		return
	}
	body.Return(res...)
}

// blocked fills the if-blocked branch.
func (g *fileGen) blocked(blk *jen.Group, w *wrapper, l locals) {
	if call := g.blockHandlerCall(w, l, nil, jen.Id(l.block)); call != nil {
		if w.results().Len() == 0 {
			blk.Add(call)
			blk.Return()
		} else {
			blk.Return(call)
		}
		return
	}
	// No handler: zero values and the BlockError as the error result.
	n := w.results().Len()
	if w.lockSafe {
		// The named results are zero: set the error, return them bare.
		blk.Id(l.results[n-1]).Op("=").Id(l.block)
		blk.Return()
		return
	}
	out := make([]jen.Code, n)
	for i := range n - 1 {
		t := w.results().At(i).Type()
		if z, ok := g.zero(t); ok {
			out[i] = z
			continue
		}
		blk.Var().Id(l.results[i]).Add(g.typeExpr(t))
		out[i] = jen.Id(l.results[i])
	}
	out[n-1] = jen.Id(l.block)
	blk.Return(out...)
}

// blockHandlerCall is Java's handleBlockException: the call of the
// blockHandler, else the fallback, else the default fallback, given the
// BlockError b; nil when there is none. ctx, when not nil, replaces a
// leading context argument.
func (g *fileGen) blockHandlerCall(w *wrapper, l locals, ctx, b jen.Code) jen.Code {
	if w.block != nil && w.deco != nil {
		return g.decoratedHandlerCall(w, l, w.block, ctx, b)
	}
	if w.block != nil {
		args := append(g.callArgs(w, l, ctx, true), b)
		return g.callee(w, l, w.block.obj, w.block.method).Call(args...)
	}
	return g.fallbackCall(w, l, ctx, b)
}

// errorHandlerCall is the fallback (or default fallback) call for a traced
// business error, or nil when there is none.
func (g *fileGen) errorHandlerCall(w *wrapper, l locals, errV jen.Code) jen.Code {
	return g.fallbackCall(w, l, jen.Id(l.entry).Dot("Context").Call(), errV)
}

// fallbackCall calls the fallback, else the default fallback, passing err
// to the one that takes an error; nil when there is neither.
func (g *fileGen) fallbackCall(w *wrapper, l locals, ctx, err jen.Code) jen.Code {
	switch {
	case w.fallback != nil && w.deco != nil:
		return g.decoratedHandlerCall(w, l, w.fallback, ctx, err)
	case w.fallback != nil:
		args := g.callArgs(w, l, ctx, w.fallback.takesErr)
		if w.fallback.takesErr {
			args = append(args, err)
		}
		return g.callee(w, l, w.fallback.obj, w.fallback.method).Call(args...)
	case w.dflt != nil:
		var args []jen.Code
		if w.dflt.takesErr {
			args = append(args, err)
		}
		return g.callee(w, l, w.dflt.obj, w.dflt.method).Call(args...)
	}
	return nil
}

// callArgs are the wrapper's parameters as arguments, ctx (when not nil)
// replacing a leading context. A variadic parameter is spread, unless
// asSlice: handlers that take a parameter after it take it as a slice.
func (g *fileGen) callArgs(w *wrapper, l locals, ctx jen.Code, asSlice bool) []jen.Code {
	out := make([]jen.Code, len(l.params))
	for i, p := range l.params {
		switch {
		case i == w.ctxParam && ctx != nil:
			out[i] = ctx
		case w.sig.Variadic() && i == len(l.params)-1 && !asSlice:
			out[i] = jen.Id(p).Op("...")
		default:
			out[i] = jen.Id(p)
		}
	}
	return out
}

// callee refers to fn from inside w: a method on w's receiver (the
// decorated value's, for a decorated interface's own method), a function
// of the package or of an imported one, instantiated with w's type
// parameters when generic.
func (g *fileGen) callee(w *wrapper, l locals, fn *types.Func, method bool) *jen.Statement {
	if w.deco != nil && fn == w.fn {
		return jen.Id(l.recv).Dot(w.deco.field).Dot(fn.Name())
	}
	if method {
		return jen.Id(l.recv).Dot(fn.Name())
	}
	var s *jen.Statement
	if fn.Pkg().Path() == g.pkg.Path() {
		s = jen.Id(fn.Name())
	} else {
		g.note(fn.Pkg())
		s = g.qual(fn.Pkg().Path(), fn.Name())
	}
	if sig := fn.Type().(*types.Signature); sig.TypeParams().Len() > 0 {
		tps := w.typeParams()
		ids := make([]jen.Code, tps.Len())
		for i := range ids {
			ids[i] = jen.Id(w.typeParamName(i))
		}
		s.Types(ids...)
	}
	return s
}
