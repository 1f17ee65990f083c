package generator

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// decoration builds a decorated interface's constructor, the struct type
// it returns and the type's methods:
//
//	func ProtectPayments(next Payments) Payments { return &sentinel_Payments{next: next} }
//	type sentinel_Payments struct{ next Payments }
//	func (d *sentinel_Payments) Charge(...) (...) { ...a wrapper around d.next.Charge... }
//
// The type holds the decorated value in a pointer, so that the
// constructor allocates once and no call allocates.
func (g *fileGen) decoration(dc *decoration) []jen.Code {
	w0 := dc.methods[0] // every method names the type parameters alike
	g.cur = w0
	n := newNamer(g.pkgNames, g.aliasNames, typeParamNames(w0))
	next := n.fresh("next")
	var tparams []jen.Code
	for i := range dc.tparams.Len() {
		tparams = append(tparams, jen.Id(w0.typeParamName(i)).Add(g.typeExpr(dc.tparams.At(i).Constraint())))
	}
	iface := g.decoratedType(dc, dc.obj.Name())
	ctor := jen.Commentf("%s returns next, protected: each method calls next's as a Sentinel resource.", dc.ctor).Line().
		Comment("It panics if next is nil.").Line().Comment("//").Line()
	width := 0
	for _, w := range dc.methods {
		width = max(width, len(w.fn.Name()))
	}
	for _, w := range dc.methods {
		what := strconv.Quote(w.resource)
		if w.excluded {
			what = "unprotected (exclude=)"
		}
		ctor.Comment("//\t" + w.fn.Name() + strings.Repeat(" ", width+2-len(w.fn.Name())) + what).Line()
	}
	// A nil next would fail at its first call, inside generated code; it
	// is a mistake at the call of the constructor, and is said there.
	ctor.Func().Id(dc.ctor).Types(tparams...).Params(jen.Id(next).Add(iface)).Add(g.decoratedType(dc, dc.obj.Name())).Block(
		jen.If(jen.Id(next).Op("==").Nil()).Block(jen.Panic(jen.Lit(dc.ctor+": next is nil"))),
		jen.Return(jen.Op("&").Add(g.decoratedType(dc, dc.impl)).Values(jen.Dict{jen.Id(dc.field): jen.Id(next)})),
	)
	typ := jen.Commentf("%s is the %s that %s returns.", dc.impl, dc.obj.Name(), dc.ctor).Line().
		Type().Id(dc.impl).Types(tparams...).Struct(jen.Id(dc.field).Add(g.decoratedType(dc, dc.obj.Name())))
	g.cur = nil
	out := []jen.Code{jen.Line(), ctor, jen.Line(), typ}
	for _, w := range dc.methods {
		out = append(out, jen.Line(), g.wrapper(w))
	}
	return out
}

// decoratedType writes name (the interface, or the type implementing it)
// instantiated with the decoration's type parameters.
func (g *fileGen) decoratedType(dc *decoration, name string) *jen.Statement {
	t := jen.Id(name)
	if dc.tparams.Len() > 0 {
		ids := make([]jen.Code, dc.tparams.Len())
		for i := range ids {
			ids[i] = jen.Id(dc.methods[0].typeParamName(i))
		}
		t.Types(ids...)
	}
	return t
}

// decoratedHandlerCall calls the handler's method of the same name as the
// decorated method, with the same arguments (ctx, when not nil, in place
// of a leading context): on the handler variable, or on what the handler
// function returns given cause.
func (g *fileGen) decoratedHandlerCall(w *wrapper, l locals, h *handler, ctx, cause jen.Code) jen.Code {
	var target *jen.Statement
	if h.value != nil {
		target = g.pkgRef(h.value.Pkg(), h.value.Name())
	} else {
		target = g.callee(w, l, h.obj, false).Call(cause)
	}
	return target.Dot(w.fn.Name()).Call(g.callArgs(w, l, ctx, false)...)
}
