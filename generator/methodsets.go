package generator

import (
	"go/token"
	"go/types"
	"strings"
)

// Method wrappers add methods, and a type's methods decide what it is: a
// wrapper Error makes it an error, wrappers Lock and Unlock a sync.Locker,
// a wrapper String a fmt.Stringer. What the type becomes is judged here,
// once every wrapper of the package is resolved, with the methods the
// whole run generates, not each wrapper alone against the type as it was.

// methodSets are the method wrappers of a package, by receiver type
// (origin) and name.
type methodSets struct {
	pkg *types.Package
	gen map[*types.Named]map[string]*wrapper

	// elsewhere reports whether t (or *T when ptr) has a method called
	// name in a build this run did not load, built with the wrapper
	// being checked (see checkMethodSets); nil: none is looked for.
	elsewhere func(t *types.Named, ptr bool, name string) (token.Position, bool)
}

func newMethodSets(pkg *types.Package, files []*annotatedFile) *methodSets {
	ms := &methodSets{pkg: pkg, gen: map[*types.Named]map[string]*wrapper{}}
	for _, af := range files {
		for _, w := range af.wrappers {
			if w.recvNamed == nil {
				continue
			}
			o := w.recvNamed.Origin()
			if ms.gen[o] == nil {
				ms.gen[o] = map[string]*wrapper{}
			}
			if ms.gen[o][w.name] == nil {
				ms.gen[o][w.name] = w
			}
		}
	}
	return ms
}

// method finds the method name of t (T, or *T when ptr) after generation:
// one it has, or a wrapper the run adds to its method set. gen is that
// wrapper, nil for a method t has already.
func (ms *methodSets) method(t *types.Named, ptr bool, name string) (sig *types.Signature, gen *wrapper) {
	var recv types.Type = t
	if ptr {
		recv = types.NewPointer(t)
	}
	if obj, _, _ := types.LookupFieldOrMethod(recv, false, ms.pkg, name); obj != nil {
		if fn, ok := obj.(*types.Func); ok {
			return fn.Type().(*types.Signature), nil
		}
		return nil, nil // a field
	}
	if w := ms.gen[t.Origin()][name]; w != nil && (ptr || !w.ptrRecv) {
		return w.sig, w
	}
	return nil, nil
}

// has reports whether t (or *T) has, after generation, a method name of
// the signature func(params) results, given as vet writes types.
//
// A method the type has only in another build counts too, whatever its
// signature there: the output is compiled and vetted in that build as
// well, and vet's verdict there is the one to fear.
func (ms *methodSets) has(t *types.Named, ptr bool, name, sig string) bool {
	s, _ := ms.method(t, ptr, name)
	if s != nil {
		return sigString(s) == sig
	}
	if ms.elsewhere == nil {
		return false
	}
	_, ok := ms.elsewhere(t, ptr, name)
	return ok
}

// sigString is a signature without its receiver, as vet prints types:
// "() string".
func sigString(s *types.Signature) string {
	return strings.TrimPrefix(types.TypeString(types.NewSignatureType(nil, nil, nil, s.Params(), s.Results(), s.Variadic()), (*types.Package).Name), "func")
}

// isError reports whether w's receiver type is an error once generated.
func (ms *methodSets) isError(w *wrapper) bool {
	return ms.has(w.recvNamed, w.ptrRecv, "Error", "() string")
}

// checkMethodSets reports the method wrappers that, with the others of
// the run, would fail go vet or silently change what the type is.
func checkMethodSets(r *resolver, files []*annotatedFile) {
	ms := newMethodSets(r.pkg.Types, files)
	ms.elsewhere = r.methodElsewhere
	for _, af := range files {
		r.cons = fileConstraint(af.path, af.header)
		for _, w := range af.wrappers {
			if w.recvNamed == nil {
				continue
			}
			r.checkStdMethod(ms, w)
			r.checkLocker(ms, w)
			r.checkBehaviour(ms, w)
		}
	}
}

// methodElsewhere reports whether t (or *T when ptr) has a method called
// name in a file of another build, built with the file being checked.
func (r *resolver) methodElsewhere(t *types.Named, ptr bool, name string) (token.Position, bool) {
	if t.Obj().Pkg() != r.pkg.Types {
		return token.Position{}, false
	}
	sib := r.siblings()
	for _, n := range sib.namesOf(t.Obj().Name()) {
		for _, d := range sib.members[n][name] {
			if d.method && (ptr || !d.ptrRecv) && buildTogether(d.cons, r.cons) {
				return d.pos, true
			}
		}
	}
	return token.Position{}, false
}

// checkStdMethod holds a wrapper named like a method of a well-known
// interface to vet's signature for it; Is, As and Unwrap only on an
// error, an Error wrapper of the run included.
func (r *resolver) checkStdMethod(ms *methodSets, w *wrapper) {
	if want := nonCanonical(w.name, w.sig, ms.isError(w)); want != "" {
		r.errs.Add(w.namePos, "wrapper %s: go vet requires a method %s to have signature %s, and %s has %s: add wrapper=Name",
			w.name, w.name, want, w.fn.Name(), strings.TrimPrefix(types.TypeString(w.sig, qualifier(w.fn.Pkg())), "func"))
	}
}

// checkLocker refuses a Lock or Unlock wrapper that makes the receiver's
// type a lock by go vet's copylocks rule: *T a sync.Locker, T not. Vet
// would then report every copy of a T in code the user never touched
// (testify's (*Call).lock and unlock became Lock and Unlock).
func (r *resolver) checkLocker(ms *methodSets, w *wrapper) {
	if w.name != "Lock" && w.name != "Unlock" {
		return
	}
	t := w.recvNamed
	locker := func(ptr bool) bool { return ms.has(t, ptr, "Lock", "()") && ms.has(t, ptr, "Unlock", "()") }
	if !locker(true) || locker(false) {
		return
	}
	other := "Unlock"
	if w.name == "Unlock" {
		other = "Lock"
	}
	var where string
	if _, gen := ms.method(t, true, other); gen != nil {
		where = "generated for " + describe(gen) + ", " + r.short(gen.declPos)
	} else if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), false, ms.pkg, other); obj != nil {
		where = r.short(obj.Pos())
	} else if at, ok := r.methodElsewhere(t, true, other); ok {
		where = shortPos(at)
	}
	r.errs.Add(w.namePos, "wrapper %s would make *%s a sync.Locker (with %s, %s), and go vet's copylocks would then report every copy of a %s: add wrapper=Name",
		w.name, t.Obj().Name(), other, where, t.Obj().Name())
}

// behaviourMethods are the methods through which the standard library
// changes what it does with a value that has them: fmt prints a Stringer,
// GoStringer or error by calling them, and an error is matched by errors.Is
// and errors.As. A wrapper derived from the method's name (string() gets
// String) must not give a type one of them unasked; wrapper=String says
// it is meant. Other well-known names (Close making an io.Closer, Read an
// io.Reader) are what a method of that name is for, and stay allowed.
var behaviourMethods = map[string]struct{ sig, iface string }{
	"String":   {"() string", "a fmt.Stringer, which fmt prints it with"},
	"GoString": {"() string", "a fmt.GoStringer, which fmt's %#v prints it with"},
	"Error":    {"() string", "an error, which fmt prints it with"},
}

// checkBehaviour refuses a derived wrapper name that gives the type one of
// behaviourMethods.
func (r *resolver) checkBehaviour(ms *methodSets, w *wrapper) {
	b, ok := behaviourMethods[w.name]
	if !ok || w.named || sigString(w.sig) != b.sig {
		return
	}
	typ := w.recvNamed.Obj().Name()
	if w.ptrRecv {
		typ = "*" + typ
	}
	r.errs.Add(w.namePos, "wrapper %s would make %s %s: add wrapper=%s if that is meant, else wrapper=Name",
		w.name, typ, b.iface, w.name)
}
