package generator

import (
	"go/ast"
	"go/build/constraint"
	"go/token"
	"go/types"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// resolver checks directives against one package's types.
type resolver struct {
	cfg       Config
	pkg       *packages.Package
	dir       string
	sib       *siblings       // read on first use: most packages have no directives
	embedders embedderIndex   // built on first use, once per package
	perBuild  *perBuild       // built on first use, once per package
	funcs     []string        // the package's function names, for "did you mean"
	run       *runState       // what the run's packages share: the module's syntax
	scan      *moduleScan     // the module's, seeded with the package's imports on first use
	cons      constraint.Expr // the build constraint of the file being resolved
	errs      annotations.ErrorList
}

// siblings returns what the package's files declare beyond what the type
// checker saw.
func (r *resolver) siblings() *siblings {
	if r.sib == nil {
		r.sib = readSiblings(r.cfg, r.pkg, r.dir)
	}
	return r.sib
}

func (r *resolver) pos(p token.Pos) token.Position { return r.pkg.Fset.Position(p) }

// resolve turns a parsed directive into a checked wrapper, or reports why
// it cannot and returns nil.
func (r *resolver) resolve(file *ast.File, d *annotations.Directive) *wrapper {
	if name := d.Func.Name.Name; name == "_" || name == "init" && d.Func.Recv == nil {
		// Neither can be referred to, so no wrapper could call it.
		what := "a blank (_) function"
		switch {
		case name == "init":
			what = "init"
		case d.Func.Recv != nil:
			what = "a blank (_) method"
		}
		r.errs.Add(d.Pos, "%s cannot be called by name, so no wrapper can call it: remove the directive", what)
		return nil
	}
	fn, ok := r.pkg.TypesInfo.Defs[d.Func.Name].(*types.Func)
	if !ok {
		r.errs.Add(d.Pos, "%s: cannot resolve the annotated function", d.Func.Name.Name)
		return nil
	}
	w := &wrapper{
		file: file, fn: fn, sig: fn.Type().(*types.Signature), ctxParam: -1,
		pos: d.Pos, namePos: d.Pos, declPos: d.Func.Pos(),
		batch: d.Batch, traffic: d.Traffic, resType: d.Type.Const,
	}
	if d.Wrapper.IsSet() {
		w.namePos, w.named = d.Wrapper.Pos, true
	}
	before := len(r.errs)
	if !r.checkTypesValid(w, d) {
		return nil
	}
	if recv := w.sig.Recv(); recv != nil {
		w.recv = recv
		t := types.Unalias(recv.Type())
		if p, ok := t.(*types.Pointer); ok {
			w.ptrRecv, t = true, types.Unalias(p.Elem())
		}
		w.recvNamed, _ = t.(*types.Named)
		if w.recvNamed == nil {
			r.errs.Add(d.Pos, "%s: cannot resolve the receiver type", fn.Name())
			return nil
		}
	}
	w.name = r.wrapperName(w, d)
	w.resource = resourceName(w)
	if d.Name.IsSet() {
		w.resource = d.Name.Text
	}
	if ps := w.params(); ps.Len() > 0 && isContext(ps.At(0).Type()) {
		w.ctxParam = 0
	}
	r.resolveArgs(w, d)
	if rs := w.results(); rs.Len() > 0 && isError(rs.At(rs.Len()-1).Type()) {
		w.hasErr = true
	}
	r.resolveHandlers(w, d)
	r.resolveIgnore(w, d)
	if len(r.errs) == before {
		r.checkEveryBuild(w, d)
	}
	w.lockSafe = resultsHoldLocks(w.sig) || r.resultsPerBuild(w.sig)
	w.arrayLens, w.info = arrayLens(r.pkg.TypesInfo, d.Func.Type), r.pkg.TypesInfo
	// A handler that is given but does not resolve is reported already.
	if !w.hasErr && !d.BlockHandler.IsSet() && !d.Fallback.IsSet() && !d.DefaultFallback.IsSet() {
		r.errs.Add(d.Pos, "%s has no error result to return a block in: give it a blockHandler, fallback or defaultFallback", describe(w))
	}
	if !w.hasErr && len(d.Ignore) > 0 {
		r.errs.Add(d.Ignore[0].Pos, "ignore: %s has no error result for ignore= to apply to", describe(w))
	}
	if len(r.errs) > before {
		return nil
	}
	return w
}

// checkTypesValid reports, with the type checker's own messages, a
// signature that does not type-check: a wrapper for it could not either.
func (r *resolver) checkTypesValid(w *wrapper, d *annotations.Directive) bool {
	valid := true
	for _, tup := range []*types.Tuple{w.sig.Params(), w.sig.Results()} {
		for v := range tup.Variables() {
			if hasInvalid(v.Type()) {
				valid = false
			}
		}
	}
	if valid {
		return true
	}
	ft := d.Func.Type
	found := false
	for _, e := range r.pkg.TypeErrors {
		if e.Pos >= ft.Pos() && e.Pos < ft.End() {
			r.errs.Add(r.pos(e.Pos), "%s", e.Msg)
			found = true
		}
	}
	if !found {
		r.errs.Add(d.Pos, "%s: its signature does not type-check", w.fn.Name())
	}
	return false
}

func hasInvalid(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return t.Kind() == types.Invalid
	case *types.Pointer:
		return hasInvalid(t.Elem())
	case *types.Slice:
		return hasInvalid(t.Elem())
	case *types.Array:
		return hasInvalid(t.Elem())
	case *types.Map:
		return hasInvalid(t.Key()) || hasInvalid(t.Elem())
	case *types.Chan:
		return hasInvalid(t.Elem())
	}
	return false
}

// describe names the annotated function as a user reads it:
// (*OrderService).getOrder, getOrder.
func describe(w *wrapper) string {
	if w.deco != nil {
		return w.deco.obj.Name() + "." + w.fn.Name()
	}
	if w.recv == nil {
		return w.fn.Name()
	}
	if w.ptrRecv {
		return "(*" + w.recvNamed.Obj().Name() + ")." + w.fn.Name()
	}
	return w.recvNamed.Obj().Name() + "." + w.fn.Name()
}

// resourceName is the default resource name, the runtime.FuncForPC form:
// pkgpath.(*Type).method, pkgpath.Type.method or pkgpath.Func, with [...]
// after a generic type or function.
func resourceName(w *wrapper) string {
	path := w.fn.Pkg().Path()
	if w.recv == nil {
		name := w.fn.Name()
		if w.sig.TypeParams().Len() > 0 {
			name += "[...]"
		}
		return path + "." + name
	}
	typ := w.recvNamed.Obj().Name()
	if w.recvNamed.TypeParams().Len() > 0 || w.recvNamed.TypeArgs().Len() > 0 {
		typ += "[...]"
	}
	if w.ptrRecv {
		typ = "(*" + typ + ")"
	}
	return path + "." + typ + "." + w.fn.Name()
}

// wrapperName is wrapper= or the capitalised name, checked against what
// the receiver or package already declares.
func (r *resolver) wrapperName(w *wrapper, d *annotations.Directive) string {
	name, pos := d.Wrapper.Text, d.Wrapper.Pos
	if !d.Wrapper.IsSet() {
		pos = d.Pos
		if w.fn.Exported() {
			r.errs.Add(pos, "%s is exported, so its wrapper cannot take its name: add wrapper=Name (or unexport %s)", describe(w), w.fn.Name())
			return ""
		}
		first, size := utf8.DecodeRuneInString(w.fn.Name())
		up := unicode.ToUpper(first)
		if up == first {
			r.errs.Add(pos, "cannot derive an exported wrapper name from %s: add wrapper=Name", w.fn.Name())
			return ""
		}
		name = string(up) + w.fn.Name()[size:]
	}
	if name == w.fn.Name() {
		r.errs.Add(pos, "wrapper=%s is the name of the annotated %s itself", name, kindOf(w))
		return ""
	}
	if w.recv != nil {
		return r.methodWrapperName(w, name, pos)
	}
	if !r.freeInPackage(name, pos) {
		return ""
	}
	return name
}

// freeInPackage reports whether a package-level name the run generates
// (a function wrapper, a constructor) is free in every build of the
// package, and says where it is taken when it is not.
func (r *resolver) freeInPackage(name string, pos token.Position) bool {
	pkg := r.pkg.Types
	if obj := pkg.Scope().Lookup(name); obj != nil {
		r.errs.Add(pos, "wrapper %s: package %s already declares %s (%s); add wrapper=Name", name, pkg.Name(), name, r.short(obj.Pos()))
		return false
	}
	if at, ok := find(r.siblings().topLevel[name], r.cons); ok {
		r.errs.Add(pos, "wrapper %s: package %s already declares %s (%s); add wrapper=Name", name, pkg.Name(), name, shortPos(at))
		return false
	}
	if why, ok := r.siblings().importClash(name, r.cons); ok {
		r.errs.Add(pos, "wrapper %s: %s; add wrapper=Name", name, why)
		return false
	}
	return true
}

// methodWrapperName checks a method wrapper's name against the
// receiver's members, its own and promoted ones, in every build of the
// package, and against the signatures go vet expects of some names.
func (r *resolver) methodWrapperName(w *wrapper, name string, pos token.Position) string {
	typ := w.recvNamed.Obj().Name()
	obj, index, _ := types.LookupFieldOrMethod(w.recv.Type(), true, w.fn.Pkg(), name)
	switch {
	case obj != nil && len(index) == 1:
		r.errs.Add(pos, "wrapper %s: %s already has a %s %s (%s)", name, typ, objKind(obj), name, r.short(obj.Pos()))
		return ""
	case obj != nil:
		// Promoted through an embedded field: the wrapper would hide it,
		// breaking code that assigns a field, or silently changing which
		// method a call (or an interface) gets.
		if st, ok := w.recvNamed.Underlying().(*types.Struct); ok && index[0] < st.NumFields() {
			emb := st.Field(index[0])
			r.errs.Add(pos, "wrapper %s would hide the %s %s that %s gets from its embedded %s (%s): add wrapper=Name",
				name, objKind(obj), name, typ, types.TypeString(emb.Type(), qualifier(w.fn.Pkg())), r.short(emb.Pos()))
			return ""
		}
	}
	if at, ok := r.siblings().member(typ, name, r.cons); ok {
		r.errs.Add(pos, "wrapper %s: %s already has a member %s (%s)", name, typ, name, shortPos(at))
		return ""
	}
	if emb, at, ok := r.promotedElsewhere(w.recvNamed, name); ok {
		r.errs.Add(pos, "wrapper %s would hide the member %s that %s gets from its embedded %s (%s): add wrapper=Name",
			name, name, typ, emb, shortPos(at))
		return ""
	}
	if outer, obj := r.embedderClash(w, name); outer != nil {
		r.errs.Add(pos, "wrapper %s would change the %s %s of %s, which embeds %s (%s): add wrapper=Name",
			name, objKind(obj), name, outer.Obj().Name(), typ, r.short(outer.Obj().Pos()))
		return ""
	}
	if outer, at, ok := r.outsideEmbedder(w, name); ok {
		r.errs.Add(pos, "wrapper %s would change the member %s of %s, which embeds %s (%s): add wrapper=Name",
			name, name, outer, typ, at)
		return ""
	}
	return name // what the name makes of the type is checked with the whole run's wrappers (methodsets.go)
}

// embedderClash finds a struct type of the package that embeds the
// receiver's type and already has a member called name no deeper than the
// wrapper would be: the wrapper would hide that member from it, or make
// the selector ambiguous, which breaks its callers or silently drops an
// interface it satisfies.
func (r *resolver) embedderClash(w *wrapper, name string) (*types.Named, types.Object) {
	if r.embedders == nil {
		r.embedders = indexEmbedders(r.pkg.Types)
	}
	for _, e := range r.embedders[w.recvNamed.Origin()] {
		obj, index, _ := types.LookupFieldOrMethod(types.NewPointer(e.outer), false, w.fn.Pkg(), name)
		if obj != nil && e.depth+1 <= len(index) {
			return e.outer, obj
		}
	}
	return nil, nil
}

// outsideEmbedder finds a struct type the type checker did not see (a
// test double, a type of another package of the module) that embeds the
// receiver's type, directly or through an embedder of the package, and
// would get name ambiguous or hidden (see outside.go). It returns that
// type and where it embeds.
func (r *resolver) outsideEmbedder(w *wrapper, name string) (string, string, bool) {
	if r.scan == nil {
		if r.scan = r.run.scanFor(r.dir); r.scan == nil {
			return "", "", false
		}
		for path, p := range r.siblings().known {
			if _, ok := r.scan.types[path]; !ok {
				r.scan.types[path] = p
			}
		}
	}
	sib := r.siblings()
	check := func(typ string, depth int) (string, string, bool) {
		outer, at, ok := r.scan.outsideClash(r.pkg.Types, r.dir, sib.loaded, sib.namesOf(typ), depth, name, r.cons)
		return outer, r.scan.rel(at), ok
	}
	if outer, at, ok := check(w.recvNamed.Obj().Name(), 1); ok {
		return outer, at, true
	}
	if r.embedders == nil {
		r.embedders = indexEmbedders(r.pkg.Types)
	}
	for _, e := range r.embedders[w.recvNamed.Origin()] {
		if outer, at, ok := check(e.outer.Obj().Name(), e.depth+1); ok {
			return outer, at, true
		}
	}
	return "", "", false
}

func kindOf(w *wrapper) string {
	if w.recv != nil {
		return "method"
	}
	return "function"
}

func objKind(obj types.Object) string {
	if _, ok := obj.(*types.Var); ok {
		return "field"
	}
	return "method"
}

// short prints a declaration's position as file:line, file being its base
// name: enough to find it, and stable across machines.
func (r *resolver) short(p token.Pos) string {
	pos := r.pos(p)
	if !pos.IsValid() {
		return "declared elsewhere"
	}
	pos.Filename = pos.Filename[strings.LastIndexAny(pos.Filename, `/\`)+1:]
	pos.Column = 0
	return pos.String()
}

// resolveArgs maps args= to parameter indices, or takes every parameter but
// a leading context.
func (r *resolver) resolveArgs(w *wrapper, d *annotations.Directive) {
	ps := w.params()
	if d.Args == nil {
		for i := range ps.Len() {
			if i != w.ctxParam {
				w.args = append(w.args, i)
			}
		}
		return
	}
	var names []string
	for v := range ps.Variables() {
		if v.Name() != "" && v.Name() != "_" {
			names = append(names, v.Name())
		}
	}
	for _, a := range d.Args {
		found := -1
		for i := range ps.Len() {
			if ps.At(i).Name() == a.Text {
				found = i
			}
		}
		if found < 0 {
			have := "it has no named parameters"
			if len(names) > 0 {
				have = "have " + strings.Join(names, ", ")
			}
			r.errs.Add(a.Pos, "args: %s is not a parameter of %s (%s)", a.Text, w.fn.Name(), have)
			continue
		}
		w.args = append(w.args, found)
	}
}

// importedPackage returns the package file imports under name, or else
// the package of that name another file of the package imports: a file
// need not import a package only for its directives (which would leave
// the import unused).
func (r *resolver) importedPackage(file *ast.File, name string) *types.Package {
	for _, spec := range file.Imports {
		if pn := r.pkg.TypesInfo.PkgNameOf(spec); pn != nil && pn.Name() == name {
			return pn.Imported()
		}
	}
	var found *types.Package
	for _, p := range r.pkg.Types.Imports() {
		if p.Name() == name {
			if found != nil {
				return nil // two packages of that name: ambiguous without the file's import
			}
			found = p
		}
	}
	return found
}

// lookup resolves Name or pkg.Name, as written in w's file, to an object.
// It reports a problem at v and returns nil when it cannot.
func (r *resolver) lookup(w *wrapper, v annotations.Value, ref, what string) types.Object {
	return r.lookupIn(w.file, v, ref, what)
}

// lookupIn resolves Name (of the package) or pkg.Name, as written in
// file, to an object. It reports a problem at v and returns nil when it
// cannot.
func (r *resolver) lookupIn(file *ast.File, v annotations.Value, ref, what string) types.Object {
	if pkgName, name, ok := strings.Cut(ref, "."); ok {
		p := r.importedPackage(file, pkgName)
		if p == nil {
			r.errs.Add(v.Pos, "%s: package %s is not imported by %s or another file of its package", what, pkgName, r.fileName(file))
			return nil
		}
		obj := p.Scope().Lookup(name)
		if obj == nil || !obj.Exported() {
			r.errs.Add(v.Pos, "%s: %s is not declared by package %s", what, ref, p.Path())
			return nil
		}
		return obj
	}
	obj := r.pkg.Types.Scope().Lookup(ref)
	if obj == nil {
		r.errs.Add(v.Pos, "%s: %s is not declared in package %s", what, ref, r.pkg.Types.Name())
	}
	return obj
}

// fileName is the base name of file.
func (r *resolver) fileName(file *ast.File) string {
	name := r.pos(file.Package).Filename
	return name[strings.LastIndexAny(name, `/\`)+1:]
}
