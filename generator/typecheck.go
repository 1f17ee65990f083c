package generator

import (
	"errors"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/tools/go/packages"
)

// typeCheck completes the listed packages pkgs as packages.Load with
// NeedTypes, NeedSyntax and NeedTypesInfo would, without the go command
// compiling them: their imports, other than pkgs themselves, are loaded
// from export data in one packages.Load, and pkgs are parsed (with
// pc.ParseFile) and type-checked here, each after those of pkgs it
// imports. It returns false, having changed nothing that load returns,
// when an import of export data imports one of pkgs in turn (pkgs a and
// b, a importing c importing b): c's b would be another package than the
// b checked here, so packages.Load must load them all.
func typeCheck(pc *packages.Config, pkgs []*packages.Package) bool {
	roots := map[string]*packages.Package{}
	for _, p := range pkgs {
		roots[p.ID] = p
	}
	var deps []string
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if roots[imp.ID] == nil && imp.ID != "unsafe" && !contains(deps, imp.ID) {
				deps = append(deps, imp.ID)
			}
		}
	}
	exported := map[string]*packages.Package{}
	if len(deps) > 0 {
		sort.Strings(deps)
		// Without the overlay, which blanks outputs of pkgs only: with
		// one, packages.Load distrusts all export data and type-checks
		// every dependency from source (fasthttp's root package, whose
		// outputs exist: 446 MB instead of 53).
		ec := *pc
		ec.Mode, ec.ParseFile, ec.Overlay = exportMode, nil, nil
		loaded, err := packages.Load(&ec, deps...)
		if err != nil {
			return false
		}
		seen := map[*types.Package]bool{}
		var reaches func(t *types.Package) bool
		reaches = func(t *types.Package) bool {
			if seen[t] {
				return false
			}
			seen[t] = true
			for _, i := range t.Imports() {
				if roots[i.Path()] != nil || reaches(i) {
					return true
				}
			}
			return false
		}
		for _, d := range loaded {
			exported[d.ID] = d
			if d.Types != nil && reaches(d.Types) {
				return false
			}
		}
	}

	over := newOverlayFiles(pc)
	done := map[string]bool{}
	var check func(p *packages.Package)
	check = func(p *packages.Package) {
		if done[p.ID] {
			return
		}
		done[p.ID] = true
		for _, imp := range p.Imports {
			if r := roots[imp.ID]; r != nil {
				check(r)
			}
		}
		checkPackage(pc, over, p, func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			imp := p.Imports[path]
			if imp == nil {
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			from := roots[imp.ID]
			if from == nil {
				from = exported[imp.ID]
			}
			if from == nil || from.Types == nil || !from.Types.Complete() {
				if from != nil && len(from.Errors) > 0 {
					return nil, errors.New(from.Errors[0].Msg)
				}
				return nil, fmt.Errorf("could not import %s", path)
			}
			return from.Types, nil
		})
	}
	for _, p := range pkgs {
		check(p)
	}
	return true
}

// checkPackage parses and type-checks p, recording what goes wrong in
// p.Errors (ParseError, TypeError) and p.TypeErrors as packages.Load
// does.
func checkPackage(pc *packages.Config, over overlayFiles, p *packages.Package, imp importerFunc) {
	p.Fset = pc.Fset
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	if len(p.Errors) > 0 && len(p.CompiledGoFiles) == 0 {
		return // go list could not say what to parse
	}
	files := make([]*ast.File, len(p.CompiledGoFiles))
	errs := make([]error, len(p.CompiledGoFiles))
	var wg sync.WaitGroup
	limit := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, name := range p.CompiledGoFiles {
		wg.Go(func() {
			limit <- struct{}{}
			defer func() { <-limit }()
			src, ok := over.content(name)
			if !ok {
				var err error
				if src, err = os.ReadFile(name); err != nil {
					errs[i] = err
					return
				}
			}
			files[i], errs[i] = pc.ParseFile(pc.Fset, name, src)
		})
	}
	wg.Wait()
	for i, err := range errs {
		var list scanner.ErrorList
		var pathErr *os.PathError
		switch {
		case err == nil:
		case errors.As(err, &list):
			for _, e := range list {
				p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
			}
		case errors.As(err, &pathErr):
			p.Errors = append(p.Errors, packages.Error{Pos: pathErr.Path + ":1", Msg: pathErr.Err.Error(), Kind: packages.ParseError})
		default:
			p.Errors = append(p.Errors, packages.Error{Pos: p.CompiledGoFiles[i] + ":1", Msg: err.Error(), Kind: packages.ParseError})
		}
		if files[i] != nil {
			p.Syntax = append(p.Syntax, files[i])
		}
	}
	if len(p.Syntax) != len(p.CompiledGoFiles) {
		// generatePackage pairs Syntax with CompiledGoFiles: a file that
		// did not parse at all leaves nothing to generate from.
		p.Syntax = nil
		return
	}
	p.TypesInfo = &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
	tc := &types.Config{
		Importer: imp,
		Sizes:    p.TypesSizes,
		Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) {
				p.TypeErrors = append(p.TypeErrors, te)
				p.Errors = append(p.Errors, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
			}
		},
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		tc.GoVersion = "go" + p.Module.GoVersion
	}
	_ = types.NewChecker(tc, pc.Fset, p.Types, p.TypesInfo).Files(p.Syntax)
}

// importerFunc is a types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// overlayFiles are pc.Overlay's contents by the real path of each file
// (symbolic links resolved), since go list names files by a path of its
// own.
type overlayFiles map[string][]byte

func newOverlayFiles(pc *packages.Config) overlayFiles {
	over := overlayFiles{}
	for name, src := range pc.Overlay {
		if !filepath.IsAbs(name) {
			name = filepath.Join(pc.Dir, name)
		}
		over[realPath(name)] = src
	}
	return over
}

func (o overlayFiles) content(name string) ([]byte, bool) {
	if len(o) == 0 {
		return nil, false
	}
	src, ok := o[realPath(name)]
	return src, ok
}

// realPath is path absolute, with symbolic links resolved where it exists.
func realPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path
}
