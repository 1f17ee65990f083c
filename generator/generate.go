package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// Generate loads the packages cfg names and returns, for each, the files
// to write and the previous outputs to remove, or its problems. It writes
// nothing. The error is for a run that could not load at all (a bad
// pattern, no go command); problems with the code are in the packages.
func Generate(cfg Config) (*Result, error) {
	start := time.Now()
	pkgs, err := load(cfg)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	res.Timing.Load = time.Since(start)
	start = time.Now()
	rs := newRunState(cfg)
	for i, p := range pkgs {
		// A package's syntax and type information can be collected once
		// its output is computed (unless a later package imports it).
		pkgs[i] = nil
		res.Packages = append(res.Packages, generatePackage(cfg, p, rs))
	}
	sort.Slice(res.Packages, func(i, j int) bool { return res.Packages[i].PkgPath < res.Packages[j].PkgPath })
	res.Timing.Generate = time.Since(start)
	return res, nil
}

// annotatedFile is a source file and its checked wrappers.
type annotatedFile struct {
	path     string
	syntax   *ast.File
	header   *ast.File // the source's header as written (a cgo file's syntax is cgo's rewrite)
	wrappers []*wrapper
	decos    []*decoration
}

// generated reports whether the file gets an output.
func (af *annotatedFile) generated() bool { return len(af.wrappers) > 0 || len(af.decos) > 0 }

func generatePackage(cfg Config, p *packages.Package, rs *runState) *Package {
	out := &Package{PkgPath: p.PkgPath, Dir: pkgDir(p)}
	if out.Errors = loadErrors(p); len(out.Errors) > 0 {
		return out
	}
	r := &resolver{cfg: cfg, pkg: p, dir: out.Dir, run: rs}
	var files []*annotatedFile
	loaded := map[string]bool{}
	for _, path := range p.GoFiles {
		loaded[path] = true
	}
	for i, f := range p.Syntax {
		path, header := p.CompiledGoFiles[i], f
		if filepath.Dir(path) != out.Dir {
			// A cgo file, compiled from a rewritten copy in the build
			// cache: its //line comments name the original, whose header
			// (build constraints, import "C") the output's constraint
			// comes from.
			path = p.Fset.PositionFor(f.Package, true).Filename
			header = nil
		}
		if isOutput(f) {
			continue
		}
		ds, errs := annotations.ParseFile(p.Fset, f)
		r.errs = append(r.errs, errs...)
		if len(ds) == 0 {
			continue
		}
		if header == nil {
			var err error
			if header, err = parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments); err != nil {
				r.errs.Add(p.Fset.Position(f.Package), "reading the header of %s: %v", filepath.Base(path), err)
				continue
			}
		}
		af := &annotatedFile{path: path, syntax: f, header: header}
		r.cons = fileConstraint(path, header)
		for _, d := range ds {
			if d.Bad {
				continue // its problems are reported; the rest would be their echo
			}
			if d.Decorate {
				if dc := r.resolveDecoration(f, d); dc != nil {
					af.decos = append(af.decos, dc)
				}
				continue
			}
			if w := r.resolve(f, d); w != nil {
				af.wrappers = append(af.wrappers, w)
			}
		}
		files = append(files, af)
	}
	for _, af := range files {
		for _, w := range af.wrappers {
			out.Resources = append(out.Resources, w.resource)
		}
		for _, dc := range af.decos {
			for _, w := range dc.protected() {
				out.Resources = append(out.Resources, w.resource)
			}
		}
	}
	checkDuplicateWrappers(r, files)
	checkMethodSets(r, files)
	checkForeignOutputs(r, files)
	if len(r.errs) > 0 {
		r.errs.Sort()
		out.Errors = r.errs
		return out
	}

	var pkgNames map[string]bool
	if len(out.Resources) > 0 {
		pkgNames = packageNames(p, r.siblings(), files)
	}
	written := map[string]bool{}
	for _, af := range files {
		if !af.generated() {
			continue
		}
		content, err := emitFile(p.Types, pkgNames, af, buildConstraint(af.path, af.header))
		if err != nil {
			// A bug in the generator, not in the user's code: say where.
			out.Errors.Add(af.firstPos(), "internal error: %v", err)
			continue
		}
		outPath := OutputPath(af.path)
		written[outPath] = true
		out.Files = append(out.Files, File{Path: outPath, Source: af.path, Content: content})
	}
	if len(out.Errors) > 0 {
		out.Files = nil
		return out
	}
	out.Orphans = orphans(out.Dir, written, loaded)
	return out
}

func pkgDir(p *packages.Package) string {
	if p.Dir != "" {
		return p.Dir
	}
	if len(p.GoFiles) > 0 {
		return filepath.Dir(p.GoFiles[0])
	}
	return ""
}

// isOutput reports whether f is a previous output, blanked by the overlay.
func isOutput(f *ast.File) bool {
	return len(f.Comments) > 0 && len(f.Comments[0].List) > 0 && f.Comments[0].List[0].Text == Header &&
		f.Comments[0].Pos() < f.Package
}

// firstPos is the position of the file's first directive.
func (af *annotatedFile) firstPos() token.Position {
	if len(af.wrappers) > 0 && (len(af.decos) == 0 || af.wrappers[0].pos.Offset < af.decos[0].pos.Offset) {
		return af.wrappers[0].pos
	}
	return af.decos[0].pos
}

// checkDuplicateWrappers reports two directives asking for one wrapper name
// on one receiver (or in the package: a function wrapper or a decorated
// interface's constructor).
func checkDuplicateWrappers(r *resolver, files []*annotatedFile) {
	type gen struct {
		what    string
		declPos token.Pos
	}
	seen := map[string]gen{}
	add := func(key, name string, pos token.Position, g gen) {
		if first, ok := seen[key]; ok {
			r.errs.Add(pos, "wrapper %s is also generated for %s (%s)", name, first.what, r.short(first.declPos))
			return
		}
		seen[key] = g
	}
	for _, af := range files {
		for _, w := range af.wrappers {
			key := w.name
			if w.recvNamed != nil {
				key = w.recvNamed.Obj().Name() + "." + w.name
			}
			add(key, w.name, w.namePos, gen{describe(w), w.declPos})
		}
		for _, dc := range af.decos {
			add(dc.ctor, dc.ctor, dc.namePos, gen{dc.obj.Name(), dc.declPos})
		}
	}
}

// checkForeignOutputs refuses to overwrite a file at an output path that
// sentinelgen did not write.
func checkForeignOutputs(r *resolver, files []*annotatedFile) {
	for _, af := range files {
		if !af.generated() {
			continue
		}
		path := OutputPath(af.path)
		if _, err := os.Stat(path); err == nil && !hasHeader(path) {
			r.errs.Add(af.firstPos(), "%s exists and was not written by sentinelgen; move it so that the wrappers can be written there", filepath.Base(path))
		}
	}
}

// packageNames is the package block as generated code sees it, in every
// build of the package (test files and other build configurations
// included), with the names generation adds: package-level wrappers and
// resource variables, which it chooses here.
func packageNames(p *packages.Package, sib *siblings, files []*annotatedFile) map[string]bool {
	names := map[string]bool{}
	for _, n := range p.Types.Scope().Names() {
		names[n] = true
	}
	for n := range sib.topLevel {
		names[n] = true
	}
	for _, af := range files {
		for _, w := range af.wrappers {
			if w.recv == nil {
				names[w.name] = true
			}
		}
		for _, dc := range af.decos {
			names[dc.ctor] = true
		}
	}
	n := newNamer()
	n.taken = names
	// fresh is a new package-level name that the type parameters in scope
	// where it is used (tps) do not shadow.
	fresh := func(base string, tps map[string]bool) string {
		name := n.fresh(base)
		for tps[name] {
			name = n.fresh(base)
		}
		return name
	}
	for _, af := range files {
		for _, w := range af.wrappers {
			base := "sentinel_" + w.fn.Name()
			if w.recvNamed != nil {
				base = "sentinel_" + w.recvNamed.Obj().Name() + "_" + w.fn.Name()
			}
			w.resVar = fresh(base, typeParamNames(w))
		}
		for _, dc := range af.decos {
			tps := map[string]bool{}
			for tp := range dc.tparams.TypeParams() {
				tps[tp.Obj().Name()] = true
			}
			dc.impl = fresh("sentinel_"+dc.obj.Name(), tps)
			for _, w := range dc.protected() {
				w.resVar = fresh("sentinel_"+dc.obj.Name()+"_"+w.fn.Name(), tps)
			}
		}
	}
	for _, af := range files {
		for _, w := range af.wrappers {
			w.tparams = typeParamNamesAvoiding(w.typeParams(), w.bodyRefs(), n.taken)
		}
		for _, dc := range af.decos {
			// One set of names for the constructor, the type and its
			// methods: each refers to its resource and handlers, and the
			// constructor to the type and the interface.
			refs := []string{dc.impl, dc.obj.Name()}
			for _, w := range dc.methods {
				refs = append(refs, w.bodyRefs()...)
			}
			tparams := typeParamNamesAvoiding(dc.tparams, refs, n.taken)
			for _, w := range dc.methods {
				w.tparams = tparams
			}
		}
	}
	return n.taken
}

// typeParamNamesAvoiding names type parameters tps: as in the source,
// except those named like something the body refers to (refs: func
// Slice[T any, Slice ~[]T] calls Slice[T, Slice1]) or like a predeclared
// name it uses, which are renamed to a name free in the package block.
// It is nil when there are none.
func typeParamNamesAvoiding(tps *types.TypeParamList, bodyRefs []string, pkgNames map[string]bool) []string {
	if tps.Len() == 0 {
		return nil
	}
	refs := set(bodyRefs...)
	n := newNamer(pkgNames, universe)
	for tp := range tps.TypeParams() {
		n.taken[tp.Obj().Name()] = true
	}
	out := make([]string, tps.Len())
	for i := range tps.Len() {
		name := tps.At(i).Obj().Name()
		if refs[name] || predeclared[name] {
			name = n.fresh(name)
		}
		out[i] = name
	}
	return out
}

// orphans are the previous outputs in dir that no longer have a source
// with directives: the source was deleted, or was loaded and had none. An
// output whose source exists but was not loaded (other build tags) is left
// alone: this run cannot tell.
func orphans(dir string, written, loaded map[string]bool) []string {
	var out []string
	for _, path := range generatedIn(dir) {
		if written[path] {
			continue
		}
		src, ok := strings.CutSuffix(path, Suffix)
		if !ok {
			continue
		}
		src += ".go"
		if _, err := os.Stat(src); err == nil && !loaded[src] {
			continue
		}
		out = append(out, path)
	}
	return out
}
