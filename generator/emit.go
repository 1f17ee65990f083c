package generator

import (
	"bytes"
	"fmt"
	"go/types"
	"maps"
	"path/filepath"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// fileGen emits one generated file: the resources its wrappers enter, then
// the wrappers, in source order.
type fileGen struct {
	pkg        *types.Package
	pkgNames   map[string]bool   // the package block, our own additions included
	names      map[string]string // import path -> package name, of every package referred to
	aliases    map[string]string // import path -> name in this file; nil while collecting
	aliasNames map[string]bool   // the names in aliases
	cur        *wrapper          // the wrapper being built
}

// fixedPackages are the packages wrappers call into, by name.
var fixedPackages = map[string]string{
	runtimePath: "runtime",
	"context":   "context",
	"errors":    "errors",
	"fmt":       "fmt",
	"unsafe":    "unsafe",
}

// note records the name of a package the file refers to.
func (g *fileGen) note(p *types.Package) { g.names[p.Path()] = p.Name() }

// qual refers to name in the package at path.
func (g *fileGen) qual(path, name string) *jen.Statement {
	if _, ok := g.names[path]; !ok {
		g.names[path] = fixedPackages[path]
	}
	return jen.Qual(path, name)
}

// pkgRef refers to the package-level name of pkg: unqualified in the
// package itself, else through its import.
func (g *fileGen) pkgRef(pkg *types.Package, name string) *jen.Statement {
	if pkg.Path() == g.pkg.Path() {
		return jen.Id(name)
	}
	g.note(pkg)
	return g.qual(pkg.Path(), name)
}

// emitFile renders the generated file for an annotated source file.
func emitFile(pkg *types.Package, pkgNames map[string]bool, af *annotatedFile, constraint string) ([]byte, error) {
	g := &fileGen{pkg: pkg, pkgNames: pkgNames, names: map[string]string{}}
	// Import names must be known before local names are chosen (a
	// parameter must not shadow an import the body uses), and which imports
	// the body uses is known only once it is built: build it twice.
	g.decls(af)
	tparams := map[string]bool{}
	for _, w := range af.wrappers {
		maps.Copy(tparams, typeParamNames(w))
	}
	for _, dc := range af.decos {
		maps.Copy(tparams, typeParamNames(dc.methods[0]))
	}
	g.aliases = importAliases(g.names, pkgNames, tparams)
	g.aliasNames = map[string]bool{}
	for _, a := range g.aliases {
		g.aliasNames[a] = true
	}
	decls := g.decls(af)

	f := jen.NewFilePathName(pkg.Path(), pkg.Name())
	for path, alias := range g.aliases {
		if alias == g.names[path] {
			f.ImportName(path, alias)
		} else {
			f.ImportAlias(path, alias)
		}
	}
	// Header comments starting with // are written as they are; Render
	// formats the whole file with go/format.
	header := Header + "\n\n"
	if constraint != "" {
		header += constraint + "\n\n"
	}
	var kinds []string
	if len(af.wrappers) > 0 {
		kinds = append(kinds, annotations.Prefix)
	}
	if len(af.decos) > 0 {
		kinds = append(kinds, annotations.DecoratePrefix)
	}
	header += "// Wrappers for the " + strings.Join(kinds, " and ") + " directives of " + filepath.Base(af.path) + "."
	f.HeaderComment(header)
	f.Add(decls...)
	var out bytes.Buffer
	if err := f.Render(&out); err != nil {
		return nil, fmt.Errorf("%s: rendering: %w", af.path, err)
	}
	return out.Bytes(), nil
}

// decls builds the file's declarations: the resources, the wrappers, then
// each decorated interface's constructor, type and methods.
func (g *fileGen) decls(af *annotatedFile) []jen.Code {
	var defs []jen.Code
	for _, w := range af.wrappers {
		defs = append(defs, jen.Id(w.resVar).Op("=").Add(g.declare(w)))
	}
	for _, dc := range af.decos {
		for _, w := range dc.protected() {
			defs = append(defs, jen.Id(w.resVar).Op("=").Add(g.declare(w)))
		}
	}
	out := []jen.Code{
		jen.Comment("The resources of this file, declared at init so that the runtime knows them").Line().
			Comment("before their first call and the wrappers never look them up by name.").Line().
			Var().Defs(defs...),
	}
	for _, w := range af.wrappers {
		out = append(out, jen.Line(), g.wrapper(w))
	}
	for _, dc := range af.decos {
		out = append(out, g.decoration(dc)...)
	}
	return out
}

// declare builds w's runtime.Declare call.
func (g *fileGen) declare(w *wrapper) jen.Code {
	traffic := "Outbound"
	if w.traffic == annotations.Inbound {
		traffic = "Inbound"
	}
	var params []jen.Code
	for _, i := range w.args {
		params = append(params, jen.Lit(specParamName(w, i)))
	}
	fields := jen.Dict{
		jen.Id("Name"):    jen.Lit(w.resource),
		jen.Id("Traffic"): g.qual(runtimePath, traffic),
		jen.Id("Type"):    g.qual(runtimePath, w.resType),
	}
	if len(params) > 0 {
		fields[jen.Id("Params")] = jen.Index().String().Values(params...)
	}
	return g.qual(runtimePath, "Declare").Call(g.qual(runtimePath, "ResourceSpec").Values(fields))
}

// specParamName is the name the runtime is told for parameter i: the
// source's, or its position for an unnamed one.
func specParamName(w *wrapper, i int) string {
	if n := w.params().At(i).Name(); n != "" && n != "_" {
		return n
	}
	return fmt.Sprintf("p%d", i)
}
