package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// listMode lists the named packages (files, imports, module, sizes)
// without type-checking them, and without the go command compiling them:
// go list -export, which packages.Load runs for NeedTypes without
// NeedDeps, compiles the named packages too, not only their dependencies,
// which doubles the work of loading them (and needs, for a package of
// 10,000 directives, a compiler of 1 GB) for export data nobody reads.
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedModule | packages.NeedTypesSizes

// exportMode loads the named packages' dependencies from export data,
// which the build cache keeps.
const exportMode = packages.NeedName | packages.NeedTypes

// fullMode is the one packages.Load that load falls back to (typeCheck).
const fullMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo

// load loads the packages cfg names, with previous outputs blanked: it
// lists them, loads their imports from export data, then parses and
// type-checks them itself (typeCheck).
func load(cfg Config) ([]*packages.Package, error) {
	fset := token.NewFileSet()
	pc := &packages.Config{Mode: listMode, Dir: cfg.Dir, Env: cfg.Env, Fset: fset, ParseFile: parseDeclarations}
	if len(cfg.Tags) > 0 {
		pc.BuildFlags = []string{"-tags=" + strings.Join(cfg.Tags, ",")}
	}
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	over, err := overlay(pc, patterns)
	if err != nil {
		return nil, err
	}
	pc.Overlay = over
	pkgs, err := packages.Load(pc, patterns...)
	if err != nil {
		return nil, err
	}
	if typeCheck(pc, pkgs) {
		return pkgs, nil
	}
	pc.Mode = fullMode
	return packages.Load(pc, patterns...)
}

// parseDeclarations parses a file of a loaded package for what the
// generator reads: its declarations, their types and comments. Function
// bodies are dropped before type-checking, and objects are not resolved
// (go/types resolves names): what a wrapper calls, and every check, is
// decided by signatures and declarations, and a body's syntax and type
// information are most of a loaded package's memory. (Type errors the
// missing bodies cause, an unused import, are not reported: loadErrors
// ignores type errors.)
func parseDeclarations(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	f, err := parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	if f != nil {
		dropBodies(f)
	}
	return f, err
}

// dropBodies drops f's function bodies, which nothing the generator
// decides reads.
func dropBodies(f *ast.File) {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			fn.Body = nil
		}
	}
}

// dropComments drops f's comments, once its build constraint is read:
// files read by syntax only for their declarations keep no more.
func dropComments(f *ast.File) {
	f.Comments, f.Doc = nil, nil
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			d.Doc = nil
		case *ast.GenDecl:
			d.Doc = nil
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					s.Doc, s.Comment = nil, nil
					ast.Inspect(s.Type, func(n ast.Node) bool {
						if fl, ok := n.(*ast.Field); ok {
							fl.Doc, fl.Comment = nil, nil
						}
						return true
					})
				case *ast.ValueSpec:
					s.Doc, s.Comment = nil, nil
				case *ast.ImportSpec:
					s.Doc, s.Comment = nil, nil
				}
			}
		}
	}
}

// loadErrors turns the errors that keep a package from being generated
// (go list and syntax errors) into positioned errors. Type errors are not
// among them: until its wrappers exist, a package that calls them does not
// type-check, and that must not stop their generation. Nor is the go
// command's failure to compile the package itself for export data
// ("# pkg/path" then compiler output), which is the same type errors again.
func loadErrors(p *packages.Package) annotations.ErrorList {
	var errs annotations.ErrorList
	for _, e := range p.Errors {
		if e.Kind == packages.TypeError || strings.HasPrefix(e.Msg, "# "+p.PkgPath+"\n") {
			continue
		}
		errs = append(errs, &annotations.Error{Pos: parsePos(e.Pos), Msg: e.Msg})
	}
	if len(errs) == 0 && len(p.Errors) == 0 && p.Types == nil {
		errs.Add(token.Position{}, "%s: package could not be loaded", p.PkgPath)
	}
	return errs
}

// parsePos reads go/packages' "file:line:col" (or "-") position. The file
// name may itself hold colons; line and column are the last numeric fields.
func parsePos(s string) token.Position {
	if s == "" || s == "-" {
		return token.Position{}
	}
	parts := strings.Split(s, ":")
	var nums []int
	for len(parts) > 1 && len(nums) < 2 {
		n, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		parts = parts[:len(parts)-1]
	}
	pos := token.Position{Filename: strings.Join(parts, ":")}
	switch len(nums) {
	case 2:
		pos.Line, pos.Column = nums[0], nums[1]
	case 1:
		pos.Line = nums[0]
	}
	return pos
}
