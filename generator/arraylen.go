package generator

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/dave/jennifer/jen"
)

// An array length may be a constant that differs between builds
// (bufSize 4096 on linux, 512 elsewhere): a wrapper written with the
// length the loaded build computed would not compile in the others. So
// an array type of the annotated function's signature keeps its length
// as the source spells it, with the package's names and imports.

// arrayLens maps each array type of the signature ft whose length is
// not a plain literal to that length as written.
func arrayLens(info *types.Info, ft *ast.FuncType) map[*types.Array]ast.Expr {
	var m map[*types.Array]ast.Expr
	ast.Inspect(ft, func(n ast.Node) bool {
		at, ok := n.(*ast.ArrayType)
		if !ok || at.Len == nil {
			return true
		}
		if _, lit := at.Len.(*ast.BasicLit); lit {
			return true
		}
		if a, ok := info.TypeOf(at).(*types.Array); ok {
			if m == nil {
				m = map[*types.Array]ast.Expr{}
			}
			m[a] = at.Len
		}
		return true
	})
	return m
}

// arrayLen writes the length of array type a: as the source spells it
// when it is one of the current wrapper's, else as the number.
func (g *fileGen) arrayLen(a *types.Array) jen.Code {
	if g.cur != nil {
		if x, ok := g.cur.arrayLens[a]; ok {
			if c, ok := g.constExpr(x, g.cur.info); ok {
				return c
			}
		}
	}
	return jen.Lit(int(a.Len()))
}

// constExpr writes the constant expression x, its names resolved by info:
// the package's own unqualified, an imported package's through its
// import. It reports false for a form it does not write, for which the
// caller has the value.
func (g *fileGen) constExpr(x ast.Expr, info *types.Info) (jen.Code, bool) {
	switch x := x.(type) {
	case *ast.BasicLit:
		return jen.Op(x.Value), true
	case *ast.Ident:
		obj := info.Uses[x]
		if obj == nil || obj.Pkg() != nil && obj.Pkg() != g.pkg {
			return nil, false
		}
		return jen.Id(x.Name), true
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return nil, false
		}
		pn, ok := info.Uses[id].(*types.PkgName)
		if !ok {
			return nil, false
		}
		g.note(pn.Imported())
		return g.qual(pn.Imported().Path(), x.Sel.Name), true
	case *ast.ParenExpr:
		inner, ok := g.constExpr(x.X, info)
		return jen.Parens(inner), ok
	case *ast.UnaryExpr:
		inner, ok := g.constExpr(x.X, info)
		return jen.Op(x.Op.String()).Add(inner), ok
	case *ast.BinaryExpr:
		l, okL := g.constExpr(x.X, info)
		r, okR := g.constExpr(x.Y, info)
		return jen.Add(l).Op(x.Op.String()).Add(r), okL && okR
	case *ast.CallExpr: // len(arr), unsafe.Sizeof(v), int(c)
		if x.Ellipsis.IsValid() {
			return nil, false
		}
		fun, ok := g.constExpr(x.Fun, info)
		args := make([]jen.Code, len(x.Args))
		for i, a := range x.Args {
			var okA bool
			args[i], okA = g.constExpr(a, info)
			ok = ok && okA
		}
		return jen.Add(fun).Call(args...), ok
	}
	return nil, false
}

// methodType finds, in file, the type of the interface method whose name
// is at pos: the signature a decorated method's array lengths are spelt
// in. It descends only into the nodes holding pos.
func methodType(file *ast.File, pos token.Pos) *ast.FuncType {
	var ft *ast.FuncType
	ast.Inspect(file, func(n ast.Node) bool {
		if n == nil || ft != nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		if f, ok := n.(*ast.Field); ok && len(f.Names) == 1 && f.Names[0].Pos() == pos {
			ft, _ = f.Type.(*ast.FuncType)
			return false
		}
		return true
	})
	return ft
}
