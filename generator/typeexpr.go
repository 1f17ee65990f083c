package generator

import (
	"go/types"
	"strconv"

	"github.com/dave/jennifer/jen"
)

// typeExpr writes a go/types type as a Go type expression. Types of other
// packages go through qual, which records the import; the package's own
// types are written unqualified.
func (g *fileGen) typeExpr(t types.Type) jen.Code {
	switch t := t.(type) {
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			return g.qual("unsafe", "Pointer")
		}
		return jen.Id(t.Name())
	case *types.Alias:
		return g.named(t.Obj(), t.TypeArgs())
	case *types.Named:
		return g.named(t.Obj(), t.TypeArgs())
	case *types.TypeParam:
		if g.cur != nil {
			if i := g.cur.tparamIndex(t); i >= 0 {
				return jen.Id(g.cur.typeParamName(i))
			}
		}
		return jen.Id(t.Obj().Name())
	case *types.Pointer:
		return jen.Op("*").Add(g.typeExpr(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(g.typeExpr(t.Elem()))
	case *types.Array:
		return jen.Index(g.arrayLen(t)).Add(g.typeExpr(t.Elem()))
	case *types.Map:
		return jen.Map(g.typeExpr(t.Key())).Add(g.typeExpr(t.Elem()))
	case *types.Chan:
		elem := g.typeExpr(t.Elem())
		if inner, ok := t.Elem().(*types.Chan); ok && inner.Dir() == types.RecvOnly && t.Dir() != types.RecvOnly {
			elem = jen.Parens(elem) // chan (<-chan T), not chan<- chan T
		}
		switch t.Dir() {
		case types.SendOnly:
			return jen.Chan().Op("<-").Add(elem)
		case types.RecvOnly:
			return jen.Op("<-").Chan().Add(elem)
		}
		return jen.Chan().Add(elem)
	case *types.Signature:
		return jen.Func().Add(g.signature(t))
	case *types.Struct:
		fields := make([]jen.Code, t.NumFields())
		for i := range fields {
			f := t.Field(i)
			var c *jen.Statement
			if f.Embedded() {
				c = jen.Add(g.typeExpr(f.Type()))
			} else {
				c = jen.Id(f.Name()).Add(g.typeExpr(f.Type()))
			}
			if tag := t.Tag(i); tag != "" && strconv.CanBackquote(tag) {
				c.Op("`" + tag + "`")
			} else if tag != "" {
				c.Op(strconv.Quote(tag))
			}
			fields[i] = c
		}
		return jen.Struct(fields...)
	case *types.Interface:
		var elems []jen.Code
		for i := range t.NumEmbeddeds() {
			elems = append(elems, g.typeExpr(t.EmbeddedType(i)))
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			elems = append(elems, jen.Id(m.Name()).Add(g.signature(m.Type().(*types.Signature))))
		}
		if t.IsImplicit() && len(elems) == 1 {
			return elems[0] // a constraint written as a bare union: ~int | ~string
		}
		return jen.Interface(elems...)
	case *types.Union:
		terms := make([]jen.Code, t.Len())
		for i := range terms {
			term := t.Term(i)
			if term.Tilde() {
				terms[i] = jen.Op("~").Add(g.typeExpr(term.Type()))
			} else {
				terms[i] = g.typeExpr(term.Type())
			}
		}
		return jen.Union(terms...)
	}
	// Unreachable for types that type-check; keep the output compilable
	// enough to point at the problem.
	return jen.Id(types.TypeString(t, nil))
}

func (g *fileGen) named(obj *types.TypeName, targs *types.TypeList) jen.Code {
	var s *jen.Statement
	if obj.Pkg() == nil || obj.Pkg().Path() == g.pkg.Path() {
		s = jen.Id(obj.Name()) // predeclared (error, any, comparable) or our own
	} else {
		g.note(obj.Pkg())
		s = g.qual(obj.Pkg().Path(), obj.Name())
	}
	if targs.Len() > 0 {
		args := make([]jen.Code, targs.Len())
		for i := range args {
			args[i] = g.typeExpr(targs.At(i))
		}
		s.Types(args...)
	}
	return s
}

// signature writes a func type's parameters and results, without names.
func (g *fileGen) signature(sig *types.Signature) *jen.Statement {
	params := make([]jen.Code, sig.Params().Len())
	for i := range params {
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == len(params)-1 {
			params[i] = jen.Op("...").Add(g.typeExpr(t.(*types.Slice).Elem()))
			continue
		}
		params[i] = g.typeExpr(t)
	}
	s := jen.Params(params...)
	return s.Add(g.results(sig.Results(), nil))
}

// results writes a result list: nothing, T, or (T, U); named when names is
// not nil.
func (g *fileGen) results(rs *types.Tuple, names []string) jen.Code {
	switch {
	case rs.Len() == 0:
		return jen.Null()
	case rs.Len() == 1 && names == nil:
		return g.typeExpr(rs.At(0).Type())
	}
	out := make([]jen.Code, rs.Len())
	for i := range out {
		if names != nil {
			out[i] = jen.Id(names[i]).Add(g.typeExpr(rs.At(i).Type()))
		} else {
			out[i] = g.typeExpr(rs.At(i).Type())
		}
	}
	return jen.Params(out...)
}

// zero writes the zero value of t as a literal where one reads well, and
// reports false where only a declared variable will do (structs, arrays,
// type parameters).
func (g *fileGen) zero(t types.Type) (jen.Code, bool) {
	if _, ok := t.(*types.TypeParam); ok {
		return nil, false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return jen.False(), true
		case u.Info()&types.IsString != 0:
			return jen.Lit(""), true
		case u.Info()&types.IsNumeric != 0:
			return jen.Lit(0), true
		case u.Kind() == types.UnsafePointer:
			return jen.Nil(), true
		}
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		return jen.Nil(), true
	}
	return nil, false
}
