package generator

import (
	"go/build/constraint"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// A wrapper is compiled wherever its source file is, and calls the
// handlers and names the ignored errors of its directive. When one of
// them is declared only for some builds (openBlocked in p_unix.go) and
// the source builds in others too, the output would not compile there.
// Putting the output under the narrower constraint would take the
// wrapper from callers in those builds, so the directive is refused.

// checkEveryBuild refuses a wrapper whose handlers or ignored errors are
// declared in the package for fewer builds than its source file.
func (r *resolver) checkEveryBuild(w *wrapper, d *annotations.Directive) {
	for _, h := range []struct {
		key string
		v   annotations.Value
		h   *handler
	}{{"blockHandler", d.BlockHandler, w.block}, {"fallback", d.Fallback, w.fallback}, {"defaultFallback", d.DefaultFallback, w.dflt}} {
		if h.h != nil {
			r.declaredForEveryBuild(w, h.key, h.v, h.h.obj, h.h.method)
		}
	}
	if len(w.ignore) != len(d.Ignore) {
		return // some did not resolve, and are reported
	}
	for i, ig := range w.ignore {
		var obj types.Object = ig.value
		if ig.typ != nil {
			t := types.Unalias(ig.typ)
			if p, ok := t.(*types.Pointer); ok {
				t = types.Unalias(p.Elem())
			}
			named, ok := t.(*types.Named)
			if !ok {
				continue
			}
			obj = named.Obj()
		}
		r.declaredForEveryBuild(w, "ignore", d.Ignore[i], obj, false)
	}
}

// declaredForEveryBuild reports obj, named by the directive's key=v, when
// the files of the package declaring it (the loaded one and those of
// other builds) do not cover every build of the directive's file.
func (r *resolver) declaredForEveryBuild(w *wrapper, key string, v annotations.Value, obj types.Object, method bool) {
	if obj.Pkg() != r.pkg.Types {
		r.importedForEveryBuild(w, key, v, obj.Pkg().Path())
		return
	}
	path := r.pos(obj.Pos()).Filename
	in := r.builds().constraintOf(path)
	if implies(r.cons, in) {
		return
	}
	var decls []sibDecl
	if method {
		for _, t := range r.siblings().namesOf(w.recvNamed.Obj().Name()) {
			decls = append(decls, r.siblings().members[t][obj.Name()]...)
		}
	} else {
		decls = r.siblings().topLevel[obj.Name()]
	}
	covered := in
	for _, d := range decls {
		if strings.HasSuffix(d.pos.Filename, "_test.go") {
			continue
		}
		if d.cons == nil {
			return
		}
		covered = &constraint.OrExpr{X: covered, Y: d.cons}
	}
	if implies(r.cons, covered) {
		return
	}
	src, decl := r.fileName(w.file), filepath.Base(path)
	r.errs.Add(v.Pos, "%s=%s: %s is declared in %s (//go:build %s), which not every build of %s includes: declare it for every build of %s, or move the directive to a file built only with %s",
		key, v.Text, obj.Name(), decl, in, src, src, decl)
}

// importedForEveryBuild reports a package, named by the directive's
// key=v, that the output would import in builds where no file of the
// package does: one imported only by unix files may not build on
// windows. The directive's own file importing it is enough.
func (r *resolver) importedForEveryBuild(w *wrapper, key string, v annotations.Value, path string) {
	for _, spec := range w.file.Imports {
		if spec.Path.Value == strconv.Quote(path) {
			return
		}
	}
	sib := r.siblings()
	var covered constraint.Expr
	var by []string
	for _, imp := range sib.imports {
		if imp.path != path || strings.HasSuffix(imp.file, "_test.go") {
			continue
		}
		cons := imp.cons
		if sib.loaded[imp.file] {
			cons = r.builds().constraintOf(filepath.Join(r.dir, imp.file))
		}
		if cons == nil {
			return
		}
		by = appendNew(by, imp.file)
		if covered == nil {
			covered = cons
		} else {
			covered = &constraint.OrExpr{X: covered, Y: cons}
		}
	}
	if covered == nil || implies(r.cons, covered) {
		return
	}
	src := r.fileName(w.file)
	r.errs.Add(v.Pos, "%s=%s: package %s is imported only by %s (//go:build %s), which not every build of %s includes: move the directive to a file built only where it is imported",
		key, v.Text, path, strings.Join(by, ", "), covered, src)
}
