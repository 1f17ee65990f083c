package generator

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// promotedElsewhere finds a member called name that the receiver's type
// typ gets, in a build this run did not load, from a field it embeds
// there (file_windows.go's type file struct{ closer }): a wrapper of that
// name would hide it in that build, breaking code that assigns a field or
// silently changing which method a call gets. It returns the embedded
// field as written and where.
//
// The loaded type's own embedded fields count too: a field whose type the
// package declares per build (conn embeds handle, which embeds *os.File
// on windows) promotes there what that build's declaration has.
func (r *resolver) promotedElsewhere(recv *types.Named, name string) (string, token.Position, bool) {
	sib := r.siblings()
	for _, t := range sib.namesOf(recv.Obj().Name()) {
		for _, e := range sib.embeds[t] {
			if buildTogether(e.cons, r.cons) && r.embeddedHas(e.file, e.typ, name, 0) {
				return types.ExprString(e.typ), e.pos, true
			}
		}
	}
	var emb string
	var at token.Position
	walkEmbedded(recv, func(e *types.Named, _ int) {
		if emb != "" || e.Obj().Pkg() != r.pkg.Types {
			return
		}
		if pos, ok := r.elsewhereHas(e.Obj().Name(), name); ok {
			emb, at = e.Obj().Name(), pos
		}
	})
	return emb, at, emb != ""
}

// elsewhereHas finds a member called name that the package's type typ
// has in a build this run did not load, built with the file being
// resolved: its own, or promoted from a field it embeds there.
func (r *resolver) elsewhereHas(typ, name string) (token.Position, bool) {
	sib := r.siblings()
	if at, ok := sib.member(typ, name, r.cons); ok {
		return at, true
	}
	for _, t := range sib.namesOf(typ) {
		for _, e := range sib.embeds[t] {
			if buildTogether(e.cons, r.cons) && r.embeddedHas(e.file, e.typ, name, 1) {
				return e.pos, true
			}
		}
	}
	return token.Position{}, false
}

// embeddedHas reports whether the embedded type x, written in file, has
// a member called name, itself or promoted: by its types when the type is
// loaded (the package's or an imported one), else by the syntax of the
// unloaded files that declare it, a few embeddings deep.
func (r *resolver) embeddedHas(file *ast.File, x ast.Expr, name string, depth int) bool {
	if depth > 4 {
		return false
	}
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
			continue
		case *ast.ParenExpr:
			x = t.X
			continue
		case *ast.IndexExpr:
			x = t.X
			continue
		case *ast.IndexListExpr:
			x = t.X
			continue
		}
		break
	}
	sib := r.siblings()
	switch t := x.(type) {
	case *ast.Ident:
		// The loaded declaration, and those of other builds.
		if tn, ok := r.pkg.Types.Scope().Lookup(t.Name).(*types.TypeName); ok && hasMember(tn, name) {
			return true
		}
		if len(sib.members[t.Name][name]) > 0 {
			return true
		}
		for _, e := range sib.embeds[t.Name] {
			if r.embeddedHas(e.file, e.typ, name, depth+1) {
				return true
			}
		}
	case *ast.SelectorExpr:
		pkgID, ok := t.X.(*ast.Ident)
		if !ok {
			return false
		}
		if p := importedBy(file, pkgID.Name, sib.known); p != nil {
			if tn, ok := p.Scope().Lookup(t.Sel.Name).(*types.TypeName); ok {
				return hasMember(tn, name)
			}
		}
	}
	return false
}

// hasMember reports whether the type tn names has a field or method
// called name, its own or promoted, as seen from tn's package.
func hasMember(tn *types.TypeName, name string) bool {
	t := tn.Type()
	var recv types.Type = types.NewPointer(t)
	if types.IsInterface(t) {
		recv = t
	}
	obj, _, _ := types.LookupFieldOrMethod(recv, false, tn.Pkg(), name)
	return obj != nil
}

// importedBy is the package file imports under name, among known ones.
func importedBy(file *ast.File, name string, known map[string]*types.Package) *types.Package {
	for _, spec := range file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		p := known[path]
		if p == nil {
			continue
		}
		if (spec.Name != nil && spec.Name.Name == name) || (spec.Name == nil && p.Name() == name) {
			return p
		}
	}
	return nil
}
