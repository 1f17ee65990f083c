package generator

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sentinelgen/sentinelgen/annotations"
	"github.com/sentinelgen/sentinelgen/internal/suggest"
)

// decoration is one //sentinel:decorate interface, resolved: a
// constructor returning the interface, and a struct type implementing it
// whose every method is a wrapper around the decorated value's.
type decoration struct {
	file    *ast.File
	pos     token.Position // the directive
	namePos token.Position // wrapper=, else the directive
	declPos token.Pos      // the type declaration

	obj     *types.TypeName // the annotated type: a defined type or an alias
	iface   *types.Interface
	tparams *types.TypeParamList // a generic interface's; the constructor's

	ctor    string     // ProtectPayments
	impl    string     // the struct type, named with the package's names (packageNames)
	field   string     // the type's field holding next: next, unless a method takes the name
	methods []*wrapper // every method, in the interface's order; excluded ones pass through

	handlers map[token.Position]*handler // resolved once, shared by the methods
}

// protected are the methods that enter a resource.
func (dc *decoration) protected() []*wrapper {
	var out []*wrapper
	for _, w := range dc.methods {
		if !w.excluded {
			out = append(out, w)
		}
	}
	return out
}

// resolveDecoration turns a //sentinel:decorate directive into a checked
// decoration, or reports why it cannot and returns nil.
func (r *resolver) resolveDecoration(file *ast.File, d *annotations.Directive) *decoration {
	obj, ok := r.pkg.TypesInfo.Defs[d.TypeDecl.Name].(*types.TypeName)
	if !ok {
		r.errs.Add(d.Pos, "%s: cannot resolve the annotated type", d.TypeDecl.Name.Name)
		return nil
	}
	dc := &decoration{file: file, pos: d.Pos, namePos: d.Pos, declPos: d.TypeDecl.Pos(), obj: obj, handlers: map[token.Position]*handler{}}
	iface, ok := obj.Type().Underlying().(*types.Interface)
	switch {
	case !ok:
		kind := "not one (its type is " + types.TypeString(obj.Type().Underlying(), qualifier(obj.Pkg())) + ")"
		if _, isStruct := obj.Type().Underlying().(*types.Struct); isStruct {
			kind = "a struct type"
		}
		r.errs.Add(d.Pos, "%s annotates an interface type, and %s is %s: to protect its methods, write %s above each", annotations.DecoratePrefix, obj.Name(), kind, annotations.Prefix)
		return nil
	case !iface.IsMethodSet():
		r.errs.Add(d.Pos, "%s: %s is a constraint (a type set), not the type of a value; decorate an interface of methods only", annotations.DecoratePrefix, obj.Name())
		return nil
	case iface.NumMethods() == 0:
		r.errs.Add(d.Pos, "%s: %s has no methods to protect", annotations.DecoratePrefix, obj.Name())
		return nil
	}
	dc.iface = iface
	switch t := obj.Type().(type) {
	case *types.Named:
		dc.tparams = t.TypeParams()
	case *types.Alias:
		dc.tparams = t.TypeParams()
	}
	before := len(r.errs)
	dc.ctor = r.constructorName(dc, d)

	byName, names := r.decorableMethods(dc, d)
	excluded, overrides := r.exclusions(dc, d, byName, names)
	if len(r.errs) > before {
		return nil
	}
	for _, name := range names {
		m := byName[name]
		if excluded[name] {
			dc.methods = append(dc.methods, &wrapper{file: file, fn: m, sig: m.Type().(*types.Signature), ctxParam: -1,
				pos: d.Pos, namePos: d.Pos, declPos: dc.declPos, name: name, deco: dc, excluded: true})
			continue
		}
		if w := r.decoratedMethod(dc, d, overrides[name], m); w != nil {
			dc.methods = append(dc.methods, w)
		}
	}
	r.checkDecorateArgs(dc, d)
	if len(r.errs) > before {
		return nil
	}
	return dc
}

// decorableMethods are the interface's methods, by name and in the
// interface's order; a method only its own package can implement (an
// unexported one, or one using an unexported type, of another package) is
// reported.
func (r *resolver) decorableMethods(dc *decoration, d *annotations.Directive) (map[string]*types.Func, []string) {
	byName := map[string]*types.Func{}
	var names []string
	for m := range dc.iface.Methods() {
		byName[m.Name()] = m
		names = append(names, m.Name())
		if !m.Exported() && m.Pkg() != dc.obj.Pkg() {
			r.errs.Add(r.methodPos(dc, d, m), "%s: %s has the unexported method %s of package %s, which only that package can implement",
				annotations.DecoratePrefix, dc.obj.Name(), m.Name(), m.Pkg().Path())
		} else if t := unexportedForeign(m.Type(), dc.obj.Pkg()); t != nil {
			r.errs.Add(r.methodPos(dc, d, m), "%s: %s's method %s uses %s, which package %s does not export, so no other package can implement it",
				annotations.DecoratePrefix, dc.obj.Name(), m.Name(), t.Name(), t.Pkg().Path())
		}
	}
	dc.field = newNamer(set(names...)).fresh("next")
	return byName, names
}

// exclusions checks exclude= and the methods' own directives against the
// interface's methods: the methods passed through, and each other
// method's directive.
func (r *resolver) exclusions(dc *decoration, d *annotations.Directive, byName map[string]*types.Func, names []string) (map[string]bool, map[string]*annotations.Directive) {
	excluded := map[string]bool{}
	for _, v := range d.Exclude {
		if byName[v.Text] == nil {
			r.errs.Add(v.Pos, "exclude: %s has no method %s%s", dc.obj.Name(), v.Text, suggestHint(v.Text, names))
			continue
		}
		excluded[v.Text] = true
	}
	overrides := map[string]*annotations.Directive{}
	for _, m := range d.Methods {
		name := m.Method.Names[0].Name
		if excluded[name] {
			r.errs.Add(m.Pos, "%s sets keys of %s, which exclude= passes through unprotected: drop one of them", annotations.Prefix, name)
			continue
		}
		overrides[name] = m
	}
	if len(excluded) == len(names) {
		r.errs.Add(d.Pos, "%s: exclude= passes every method of %s through; nothing is left to protect", annotations.DecoratePrefix, dc.obj.Name())
	}
	return excluded, overrides
}

// constructorName is wrapper=, else Protect followed by the type's name
// capitalised, checked against the package's names in every build.
func (r *resolver) constructorName(dc *decoration, d *annotations.Directive) string {
	name := d.Wrapper.Text
	if d.Wrapper.IsSet() {
		dc.namePos = d.Wrapper.Pos
	} else {
		first, size := utf8.DecodeRuneInString(dc.obj.Name())
		name = "Protect" + string(unicode.ToUpper(first)) + dc.obj.Name()[size:]
	}
	if !r.freeInPackage(name, dc.namePos) {
		return ""
	}
	return name
}

// decoratedMethod resolves one protected method of a decorated interface:
// the interface's keys, overridden by those its own //sentinel:resource
// gives (m, which may be nil).
func (r *resolver) decoratedMethod(dc *decoration, d, m *annotations.Directive, fn *types.Func) *wrapper {
	eff := mergeKeys(d, m)
	pos := r.methodPos(dc, d, fn)
	w := &wrapper{
		file: dc.file, fn: fn, sig: fn.Type().(*types.Signature), ctxParam: -1,
		pos: eff.Pos, namePos: dc.namePos, declPos: dc.declPos, name: fn.Name(), deco: dc,
		batch: eff.Batch, traffic: eff.Traffic, resType: eff.Type.Const,
	}
	for _, tup := range []*types.Tuple{w.params(), w.results()} {
		for v := range tup.Variables() {
			if hasInvalid(v.Type()) {
				r.errs.Add(pos, "%s: its signature does not type-check", describe(w))
				return nil
			}
		}
	}
	w.resource = r.decoratedResource(dc, eff, fn)
	if ps := w.params(); ps.Len() > 0 && isContext(ps.At(0).Type()) {
		w.ctxParam = 0
	}
	if m != nil && m.Args != nil {
		r.resolveArgs(w, m)
	} else {
		r.decorateArgs(w, d)
	}
	if rs := w.results(); rs.Len() > 0 && isError(rs.At(rs.Len()-1).Type()) {
		w.hasErr = true
	}
	if eff.BlockHandler.IsSet() {
		w.block = r.decorateHandler(dc, eff.BlockHandler, "blockHandler")
	}
	if eff.Fallback.IsSet() {
		w.fallback = r.decorateHandler(dc, eff.Fallback, "fallback")
	}
	switch {
	case w.hasErr:
		r.resolveIgnore(w, eff)
	case m != nil && len(m.Ignore) > 0:
		r.errs.Add(m.Ignore[0].Pos, "ignore: %s has no error result for ignore= to apply to", describe(w))
	}
	// A handler that is given but does not resolve is reported already.
	if !w.hasErr && !eff.BlockHandler.IsSet() && !eff.Fallback.IsSet() {
		r.errs.Add(pos, "%s has no error result to return a block in: give %s a blockHandler or fallback, or add exclude=%s",
			describe(w), annotations.DecoratePrefix, fn.Name())
	}
	w.lockSafe = resultsHoldLocks(w.sig) || r.resultsPerBuild(w.sig)
	if ft := methodType(dc.file, fn.Pos()); ft != nil {
		w.arrayLens, w.info = arrayLens(r.pkg.TypesInfo, ft), r.pkg.TypesInfo
	}
	return w
}

// mergeKeys is the interface's directive d with the keys that the
// method's own directive m gives in their place.
func mergeKeys(d, m *annotations.Directive) *annotations.Directive {
	if m == nil {
		return d
	}
	out := *d
	for key := range m.Given {
		switch key {
		case "name":
			out.Name = m.Name
		case "blockHandler":
			out.BlockHandler = m.BlockHandler
		case "fallback":
			out.Fallback = m.Fallback
		case "ignore":
			out.Ignore = m.Ignore
		case "traffic":
			out.Traffic = m.Traffic
		case "type":
			out.Type = m.Type
		case "args":
			out.Args = m.Args
		case "batch":
			out.Batch = m.Batch
		}
	}
	out.Pos = m.Pos
	return &out
}

var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

// decoratedResource is the method's resource name: name= with {method}
// replaced, or pkgpath.Type.Method.
func (r *resolver) decoratedResource(dc *decoration, d *annotations.Directive, fn *types.Func) string {
	if !d.Name.IsSet() {
		return dc.obj.Pkg().Path() + "." + dc.obj.Name() + "." + fn.Name()
	}
	for _, p := range placeholder.FindAllString(d.Name.Text, -1) {
		if p != "{method}" {
			r.errs.Add(d.Name.Pos, "name=%s: unknown placeholder %s; the one placeholder is {method}", d.Name.Text, p)
		}
	}
	return strings.ReplaceAll(d.Name.Text, "{method}", fn.Name())
}

// decorateArgs takes, for the interface's args=, the parameters of w
// with those names, in args= order; without args=, every parameter but a
// leading context.
func (r *resolver) decorateArgs(w *wrapper, d *annotations.Directive) {
	if d.Args == nil {
		r.resolveArgs(w, d)
		return
	}
	for _, a := range d.Args {
		for i := range w.params().Len() {
			if w.params().At(i).Name() == a.Text {
				w.args = append(w.args, i)
			}
		}
	}
}

// checkDecorateArgs reports an args= name of the interface that no
// protected method has as a parameter: a typo would otherwise pass no
// argument to hot-parameter rules, silently.
func (r *resolver) checkDecorateArgs(dc *decoration, d *annotations.Directive) {
	for _, a := range d.Args {
		found := false
		var have []string
		for _, w := range dc.protected() {
			for v := range w.params().Variables() {
				found = found || v.Name() == a.Text
				if v.Name() != "" && v.Name() != "_" && !contains(have, v.Name()) {
					have = append(have, v.Name())
				}
			}
		}
		if !found {
			r.errs.Add(a.Pos, "args: no method of %s has a parameter %s (have %s); a method's own %s args= names its parameters",
				dc.obj.Name(), a.Text, strings.Join(have, ", "), annotations.Prefix)
		}
	}
}

// decorateHandler resolves a decorated interface's blockHandler or
// fallback: a package-level variable whose type implements the interface,
// or a function taking the cause (an error) and returning such a value.
// It is resolved once per interface; nil after reporting a problem.
func (r *resolver) decorateHandler(dc *decoration, v annotations.Value, key string) *handler {
	if h, ok := dc.handlers[v.Pos]; ok {
		return h
	}
	h := r.findDecorateHandler(dc, v, key)
	dc.handlers[v.Pos] = h
	return h
}

func (r *resolver) findDecorateHandler(dc *decoration, v annotations.Value, key string) *handler {
	what := key + "=" + v.Text
	typ := dc.obj.Name()
	if dc.tparams.Len() > 0 {
		var names []string
		for tp := range dc.tparams.TypeParams() {
			names = append(names, tp.Obj().Name())
		}
		typ += "[" + strings.Join(names, ", ") + "]"
	}
	want := "want a variable of type " + typ + ", or a func(error) " + typ
	if !strings.Contains(v.Text, ".") && r.pkg.Types.Scope().Lookup(v.Text) == nil {
		hint := suggestHint(v.Text, r.handlerNames())
		if hint == "" {
			hint = "; " + want
		}
		r.errs.Add(v.Pos, "%s: %s is not declared in package %s%s", what, v.Text, r.pkg.Types.Name(), hint)
		return nil
	}
	obj := r.lookupIn(dc.file, v, v.Text, what)
	implements := func(t types.Type) bool { return types.Implements(t, dc.iface) }
	have := func(t types.Type) string { return types.TypeString(t, qualifier(dc.obj.Pkg())) }
	switch obj := obj.(type) {
	case nil:
		return nil
	case *types.Var:
		if dc.tparams.Len() > 0 {
			r.errs.Add(v.Pos, "%s: a variable cannot have the generic type %s; give a generic func(error) %s", what, typ, typ)
			return nil
		}
		if !implements(obj.Type()) {
			r.errs.Add(v.Pos, "%s has the wrong type: have %s, which does not implement %s; %s", what, have(obj.Type()), dc.obj.Name(), want)
			return nil
		}
		return &handler{value: obj}
	case *types.Func:
		sig := obj.Type().(*types.Signature)
		h := &handler{obj: obj, takesErr: true}
		if tps := sig.TypeParams(); tps.Len() > 0 {
			if tps.Len() != dc.tparams.Len() {
				r.errs.Add(v.Pos, "%s: %s has %d type parameters, %s has %d", what, v.Text, tps.Len(), dc.obj.Name(), dc.tparams.Len())
				return nil
			}
			targs := make([]types.Type, tps.Len())
			for i := range targs {
				targs[i] = dc.tparams.At(i)
			}
			inst, err := types.Instantiate(nil, sig, targs, true)
			if err != nil {
				r.errs.Add(v.Pos, "%s: cannot instantiate %s with %s's type parameters: %v", what, v.Text, dc.obj.Name(), err)
				return nil
			}
			sig, h.generic = inst.(*types.Signature), true
		}
		if sig.Params().Len() != 1 || !isError(sig.Params().At(0).Type()) || sig.Results().Len() != 1 || !implements(sig.Results().At(0).Type()) {
			r.errs.Add(v.Pos, "%s has the wrong type: have %s, %s", what, have(sig), want)
			return nil
		}
		return h
	default:
		r.errs.Add(v.Pos, "%s: %s is not a variable or function; %s", what, v.Text, want)
		return nil
	}
}

// handlerNames are the package's variables and functions, for "did you
// mean".
func (r *resolver) handlerNames() []string {
	var out []string
	scope := r.pkg.Types.Scope()
	for _, n := range scope.Names() {
		switch scope.Lookup(n).(type) {
		case *types.Var, *types.Func:
			out = append(out, n)
		}
	}
	return out
}

// suggestHint is "; did you mean X?" for the name in known nearest to
// name, or "".
func suggestHint(name string, known []string) string {
	if s := suggest.Nearest(name, known); s != "" {
		return "; did you mean " + s + "?"
	}
	return ""
}

// unexportedForeign finds, in t, a named type that another package than
// pkg declares and does not export: code in pkg cannot write it.
func unexportedForeign(t types.Type, pkg *types.Package) *types.TypeName {
	switch t := t.(type) {
	case *types.Named:
		if o := t.Obj(); o.Pkg() != nil && o.Pkg() != pkg && !o.Exported() {
			return o
		}
		for a := range t.TypeArgs().Types() {
			if o := unexportedForeign(a, pkg); o != nil {
				return o
			}
		}
	case *types.Alias:
		if o := t.Obj(); o.Pkg() != nil && o.Pkg() != pkg && !o.Exported() {
			return o
		}
		return unexportedForeign(types.Unalias(t), pkg)
	case *types.Pointer:
		return unexportedForeign(t.Elem(), pkg)
	case *types.Slice:
		return unexportedForeign(t.Elem(), pkg)
	case *types.Array:
		return unexportedForeign(t.Elem(), pkg)
	case *types.Chan:
		return unexportedForeign(t.Elem(), pkg)
	case *types.Map:
		if o := unexportedForeign(t.Key(), pkg); o != nil {
			return o
		}
		return unexportedForeign(t.Elem(), pkg)
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tup.Variables() {
				if o := unexportedForeign(v.Type(), pkg); o != nil {
					return o
				}
			}
		}
	case *types.Struct:
		for f := range t.Fields() {
			if o := unexportedForeign(f.Type(), pkg); o != nil {
				return o
			}
		}
	}
	return nil
}

// methodPos is where a problem with method m of a decorated interface is
// reported: the method in the interface's declaration, else the embedded
// interface it comes from, else the type the declaration names.
func (r *resolver) methodPos(dc *decoration, d *annotations.Directive, m *types.Func) token.Position {
	spec := d.TypeDecl
	if m.Pos() >= spec.Pos() && m.Pos() < spec.End() {
		return r.pos(m.Pos())
	}
	if it, ok := spec.Type.(*ast.InterfaceType); ok {
		for _, f := range it.Methods.List {
			if len(f.Names) > 0 {
				continue
			}
			if t := r.pkg.TypesInfo.TypeOf(f.Type); t != nil {
				if obj, _, _ := types.LookupFieldOrMethod(t, false, m.Pkg(), m.Name()); obj != nil {
					return r.pos(f.Pos())
				}
			}
		}
	}
	return r.pos(spec.Type.Pos())
}
