package generator

import (
	"go/ast"
	"go/build"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
)

// A type may be declared once per build (nativePath a string in
// path_unix.go, a []uint16 in path_windows.go), or hold such a type. The
// loaded build then tells neither its kind (so the zero value it writes,
// "", may not compile elsewhere) nor whether it holds a lock (so copying
// it through a local may be clean here and fail go vet's copylocks
// there). Results of such types are never written as literals nor copied
// through locals: the wrapper names its results and returns them bare.

// perBuild tells which types may differ between the package's builds.
type perBuild struct {
	r       *resolver
	decided map[*types.TypeName]bool
	headers map[string]constraint.Expr // by file, the build constraint of files declaring types
	specs   map[string]*ast.TypeSpec   // the loaded package's type declarations, by name
}

// resultsPerBuild reports whether a result of sig holds, by value, a
// type declared per build.
func (r *resolver) resultsPerBuild(sig *types.Signature) bool {
	for v := range sig.Results().Variables() {
		if r.builds().holds(v.Type(), map[types.Type]bool{}) {
			return true
		}
	}
	return false
}

// builds returns the package's perBuild, made on first use.
func (r *resolver) builds() *perBuild {
	if r.perBuild == nil {
		r.perBuild = &perBuild{r: r, decided: map[*types.TypeName]bool{}, headers: map[string]constraint.Expr{}}
	}
	return r.perBuild
}

// holds reports whether t is, or holds in a field or array element, a
// type declared per build.
func (pb *perBuild) holds(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		return pb.declared(t.Obj()) || pb.holds(types.Unalias(t), seen)
	case *types.Named:
		if pb.declared(t.Obj()) {
			return true
		}
		for i := range t.TypeArgs().Len() {
			if pb.holds(t.TypeArgs().At(i), seen) {
				return true
			}
		}
		return pb.holds(t.Underlying(), seen)
	case *types.Array:
		return pb.holds(t.Elem(), seen)
	case *types.Struct:
		for f := range t.Fields() {
			if pb.holds(f.Type(), seen) {
				return true
			}
		}
	}
	return false // pointers, slices, maps, ...: no copy of the value
}

// declared reports whether the type tn names is declared per build: in a
// file with a build constraint (its name's included), or, in the loaded
// package, also in a file this run did not load, or as another type
// name that is (type nativePath rawPath).
func (pb *perBuild) declared(tn *types.TypeName) bool {
	if tn.Pkg() == nil {
		return false
	}
	if d, ok := pb.decided[tn]; ok {
		return d
	}
	pb.decided[tn] = false // a cycle decides nothing
	d := pb.constrained(pb.r.pkg.Fset.Position(tn.Pos()).Filename)
	if !d && tn.Pkg() == pb.r.pkg.Types {
		d = pb.elsewhere(tn.Name()) || pb.renames(tn.Name())
	}
	pb.decided[tn] = d
	return d
}

// constrained reports whether the file at path has a build constraint.
func (pb *perBuild) constrained(path string) bool { return pb.constraintOf(path) != nil }

// constraintOf is the build constraint of the file at path, nil for none.
// Export data names the standard library's files under $GOROOT.
func (pb *perBuild) constraintOf(path string) constraint.Expr {
	if path == "" {
		return nil
	}
	if x, ok := pb.headers[path]; ok {
		return x
	}
	file := path
	if rest, ok := strings.CutPrefix(path, "$GOROOT"); ok {
		file = filepath.Join(build.Default.GOROOT, filepath.FromSlash(rest))
	}
	var x constraint.Expr
	if f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly|parser.ParseComments); err == nil {
		x = fileConstraint(file, f)
	}
	pb.headers[path] = x
	return x
}

// elsewhere reports whether a file of the package this run did not load,
// test files aside, declares name.
func (pb *perBuild) elsewhere(name string) bool {
	for _, d := range pb.r.siblings().topLevel[name] {
		if !strings.HasSuffix(d.pos.Filename, "_test.go") {
			return true
		}
	}
	return false
}

// renames reports whether the loaded package declares name as another
// type name (type T U, type T = U, type T pkg.U) that is declared per
// build.
func (pb *perBuild) renames(name string) bool {
	if pb.specs == nil {
		pb.specs = map[string]*ast.TypeSpec{}
		for _, f := range pb.r.pkg.Syntax {
			for _, decl := range f.Decls {
				if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
					for _, spec := range gd.Specs {
						ts := spec.(*ast.TypeSpec)
						pb.specs[ts.Name.Name] = ts
					}
				}
			}
		}
	}
	ts := pb.specs[name]
	if ts == nil {
		return false
	}
	id := typeName(ast.Unparen(ts.Type))
	if id == nil {
		return false
	}
	rhs, ok := pb.r.pkg.TypesInfo.Uses[id].(*types.TypeName)
	return ok && pb.declared(rhs)
}
