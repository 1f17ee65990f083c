// Package generator is sentinelgen's engine: it loads packages, checks
// their //sentinel:resource directives against their types, and returns
// the wrapper files to write. It writes nothing itself; cmd/sentinelgen
// decides what to write, remove or compare (-check).
//
//	res, err := generator.Generate(generator.Config{Patterns: []string{"./..."}})
//	for _, p := range res.Packages {
//		// p.Errors: problems, file:line:col: message; p.Files: outputs;
//		// p.Orphans: previous outputs whose source lost its directives
//		// (to remove, or under go generate to replace with a Stub).
//	}
//
// # Loading
//
// Packages are loaded once: go list (through golang.org/x/tools/go/packages)
// lists the named packages, their imports are loaded from export data,
// which the build cache keeps, and the named packages are parsed and
// type-checked here (load.go, typecheck.go). packages.Load with NeedTypes
// would have go list -export compile the named packages too, for export
// data nobody reads: for a package of 10,000 directives, edited since its
// last build, that compile took 6.5 s and 1 GB; and with an overlay (once
// outputs exist) it would type-check every dependency from source, so the
// imports are loaded without it. (When an imported package
// imports a named one in turn, packages.Load loads them all, so that the
// named one is one package.) Files are parsed without function bodies,
// whose syntax and type information are most of a package's memory and
// which nothing the generator decides reads, and a package's syntax and
// types can be collected once its output is computed.
//
// Previous outputs, the files whose first line is Header,
// are replaced by an overlay holding just their package clause, so a stale
// output never keeps a package from loading. Type errors do not stop
// generation (code calling a wrapper does not type-check until the wrapper
// exists), unless the annotated signature itself has one.
//
// # Checking
//
// Each directive (package annotations parses them) is resolved with
// go/types: handlers are methods of the receiver or, for a name the
// receiver lacks, functions of the package called without it (for a
// method, as Java's blockHandlerClass holds static methods), functions
// of the package (for a function), or pkg.Func of an imported package; a
// name that resolves to none gets a "did you mean". Their signatures must
// be identical (types.Identical) to:
//
//	blockHandler     business params, then *runtime.BlockError; same results
//	fallback         business params, optionally then error; same results
//	defaultFallback  () or (error); same results
//
// A variadic business parameter is a plain slice where another parameter
// follows it. Generic handlers are instantiated with the wrapper's type
// parameters. ignore= names error values (matched with errors.Is) and
// error types (errors.As); args= names parameters. Every problem of a
// package is reported, sorted; a package with any gets no output.
//
// # Emitting
//
// Each annotated x.go gets x_sentinel.go (OutputPath), written with
// github.com/dave/jennifer and formatted with go/format: a package-level
// var per resource, declared with runtime.Declare at init, and a wrapper
// per directive. A wrapper takes the leading context.Context (else
// context.Background()), enters the resource, calls the block handler
// (else the fallback, else the default fallback, else returns zero values
// and the *runtime.BlockError) when blocked, otherwise calls the method
// with the entry's context, records a business error that is not ignored
// and hands it to the fallback, and exits the entry on every path, a
// panicking one included (the panic is recorded, then goes on). As in
// Java, whose
// aspect catches a BlockException thrown inside the method, a
// *runtime.BlockError returned by the business method (a nested resource
// refused the call) goes to the block handlers, never to the trace or to
// ignore=. Arguments are boxed for hot-parameter rules only when
// Resource.NeedsArgs says a rule reads them. Identifiers are
// chosen so that nothing the wrapper refers to is shadowed: import names
// avoid the package block and type parameters; locals avoid parameters,
// imports and every predeclared name (a parameter called int is renamed,
// so that the int the wrapper writes stays the type); a type parameter
// named like a function, handler or ignore= value the wrapper calls
// (func Slice[T any, Slice ~[]T]) is renamed in the wrapper. A result holding a lock (go vet's copylocks) is never
// copied from a local: such a wrapper returns the call directly, or
// through named results.
//
// # Decorating an interface
//
// A //sentinel:decorate directive above an interface type (one of the
// package, or an alias or defined type of an imported one; generic or
// not) gets a constructor, ProtectX(next X) X unless wrapper= names it,
// returning a pointer to a struct type of the output that holds next (a
// nil next panics there, naming the constructor).
// Each method of that type is a wrapper, built by the code that builds a
// method wrapper, whose business call is next's method: it enters a
// resource of its own (name= with {method} replaced, else
// pkgpath.X.Method), declared at init, and behaves as above. Its
// blockHandler and fallback are a package-level variable whose type
// implements X, or a func(error) returning one (given the
// *runtime.BlockError or the business error), whose method of the same
// name is called with the same arguments; a generic interface's is a
// generic function instantiated with the constructor's type parameters.
// exclude= methods call next's unprotected. A //sentinel:resource line on
// a method of the interface replaces the keys it gives for that method.
// A method without an error result needs a handler; an interface with
// another package's unexported method, or a type set, cannot be
// implemented here and is refused.
//
// # Names
//
// A wrapper's name must be free in every build of the package, not only
// the one being loaded: the package's test files (and an external test
// package that dot-imports it) and its files for other build
// configurations are read by syntax, and a name they declare clashes when
// some build compiles both files. So do a file's import
// names and what it dot-imports. A method wrapper must not hide a field
// or method promoted from an embedded field, in any build (a struct
// declared per build may embed other fields in each; a receiver written
// through an alias, type File = file, is one type under both names), nor
// change a member of a struct type that embeds the receiver: in the
// package, in its test files (doubles that embed it beside a mock), or in
// another package of the module, which are read by syntax once per run;
// nor take a name go vet holds
// to another signature (ReadByte, WriteTo, Unwrap, ...).
//
// What a type is depends on its methods, so method wrappers are judged
// together, with every method the run generates: an Error wrapper makes
// the type an error, whose Unwrap, Is and As vet then checks; Lock and
// Unlock wrappers that would make *T a sync.Locker (and T not) are
// refused, because go vet's copylocks would then report every copy of a
// T in code nobody changed. A derived name (no wrapper=) that would give
// the type String() string, GoString() string or Error() string is
// refused too: fmt would print the value differently, errors.As would
// match it, and nobody asked; wrapper=String says it is meant. Other
// well-known names are what a method of that name is for, and are not
// warned about: close() gets Close and the type becomes an io.Closer,
// read() gets Read. Each refusal says where the name is taken; wrapper=
// chooses another.
//
// # Build constraints
//
// An output repeats what decides whether its source is built: the
// //go:build line (or the // +build lines of a file without one), the
// cgo an import "C" implies, and the GOOS and GOARCH of the file's name.
// The //go:build line is read as go/build reads it: anywhere before the
// package clause, in the package doc too.
//
// The package is loaded in one build, its output compiled in all: so
// array lengths are written as the source spells them (arraylen.go);
// results of types declared per build go through named results, never a
// literal zero nor a local copy (perbuild.go); handlers and ignored
// errors must be declared for every build of the directive's file
// (everybuild.go); and methods and promoted members of other builds
// count in a receiver's method set (methodsets.go, promoted.go).
package generator
