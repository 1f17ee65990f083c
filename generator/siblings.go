package generator

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// siblings is what the package's files declare beyond what the type
// checker saw: a wrapper must not clash with a name of any build of the
// package, not only the one being loaded. Files of other build
// configurations (x_windows.go on linux) and the package's own test files
// (x_test.go in package x, not x_test) are read by syntax; every file's
// imports are kept, because a package-level name may not repeat a file's
// import name, nor a name a file dot-imports.
type siblings struct {
	topLevel  map[string][]sibDecl            // package-level names of unloaded files
	members   map[string]map[string][]sibDecl // type name -> its methods and fields, from unloaded files
	aliases   map[string]string               // alias name -> the name it stands for (type A = B), from every file
	aliasesOf map[string][]string             // the reverse of aliases, built on first use
	embeds    map[string][]sibEmbed           // type name -> its embedded fields, from unloaded files of the package
	known     map[string]*types.Package       // by path: the loaded package's imports, transitively, and what dot imports brought
	loaded    map[string]bool                 // base names of the files the type checker saw
	imports   []fileImport                    // of every file, loaded or not
}

// sibDecl is a declaration in an unloaded file, with that file's build
// constraint: it clashes only with a wrapper some build compiles with it.
type sibDecl struct {
	pos  token.Position
	cons constraint.Expr // nil: every build

	method, ptrRecv bool // a method, on a pointer receiver
}

// sibEmbed is an embedded field of a struct type declared in an unloaded
// file: the type promotes its members there.
type sibEmbed struct {
	typ  ast.Expr  // the field's type, as written
	file *ast.File // whose imports resolve typ
	pos  token.Position
	cons constraint.Expr
}

// find returns the first declaration that a file constrained by cons is
// built with.
func find(decls []sibDecl, cons constraint.Expr) (token.Position, bool) {
	for _, d := range decls {
		if buildTogether(d.cons, cons) {
			return d.pos, true
		}
	}
	return token.Position{}, false
}

// fileImport is one import of one file.
type fileImport struct {
	cons constraint.Expr // the file's build constraint; nil for a loaded file
	file string          // base name
	name string          // the name it is imported under, "." for a dot import
	path string          // import path
	pos  token.Position  // the import spec
	pkg  *types.Package  // set for a dot import: what it brings in
}

// readSiblings reads the package directory's .go files. Files of another
// package (an external test package x_test, unless it dot-imports this
// one; a //go:build ignore program) and sentinelgen's own outputs of loaded sources (being regenerated) are
// skipped; a file that does not parse is skipped too (the go command will
// say why when it matters).
func readSiblings(cfg Config, p *packages.Package, dir string) *siblings {
	s := &siblings{topLevel: map[string][]sibDecl{}, members: map[string]map[string][]sibDecl{}, aliases: map[string]string{}, embeds: map[string][]sibEmbed{}}
	if p.Types != nil {
		scope := p.Types.Scope()
		for _, n := range scope.Names() {
			if tn, ok := scope.Lookup(n).(*types.TypeName); ok && tn.IsAlias() {
				if named, ok := types.Unalias(tn.Type()).(*types.Named); ok && named.Obj().Pkg() == p.Types {
					s.aliases[n] = named.Obj().Name()
				}
			}
		}
	}
	loaded := map[string]bool{}
	s.loaded = loaded
	for i, f := range p.Syntax {
		name := p.CompiledGoFiles[i]
		if filepath.Dir(name) != dir {
			name = p.Fset.PositionFor(f.Package, true).Filename
		}
		loaded[filepath.Base(name)] = true
		if isOutput(f) {
			continue
		}
		for _, spec := range f.Imports {
			i := s.addImport(p.Fset, name, spec)
			if i < 0 {
				continue
			}
			if pn := p.TypesInfo.PkgNameOf(spec); pn != nil {
				imp := &s.imports[i]
				if imp.name == "." {
					imp.pkg = pn.Imported()
				} else {
					imp.name = pn.Name()
				}
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return s
	}
	fset := token.NewFileSet()
	var dots []int // indices of the unloaded files' dot imports
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || loaded[name] || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if src, ok := strings.CutSuffix(name, Suffix); ok && hasHeader(filepath.Join(dir, name)) {
			src += ".go"
			if _, err := os.Stat(filepath.Join(dir, src)); loaded[src] || err != nil {
				continue // an output being regenerated now, or an orphan being removed
			}
		}
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			continue
		}
		cons := fileConstraint(path, f)
		if f.Name.Name == p.Name+"_test" && dotImports(f, p.PkgPath) {
			// The external test package dot-imports this one: the
			// wrappers land in its file block, beside its own names.
			s.addDecls(fset, f, cons, false)
			continue
		}
		if f.Name.Name != p.Name {
			continue
		}
		for _, spec := range f.Imports {
			if i := s.addImport(fset, path, spec); i >= 0 {
				s.imports[i].cons = cons
				if s.imports[i].name == "." {
					dots = append(dots, i)
				}
			}
		}
		s.addDecls(fset, f, cons, true)
	}
	s.resolveDotImports(cfg, p, dir, dots, s.embeddedImports())
	return s
}

// addImport records spec and returns its index, or -1 for a blank or
// malformed import.
// dotImports reports whether f imports path with a dot.
func dotImports(f *ast.File, path string) bool {
	for _, spec := range f.Imports {
		if spec.Name != nil && spec.Name.Name == "." && spec.Path.Value == strconv.Quote(path) {
			return true
		}
	}
	return false
}

func (s *siblings) addImport(fset *token.FileSet, file string, spec *ast.ImportSpec) int {
	path, err := strconv.Unquote(spec.Path.Value)
	if err != nil {
		return -1
	}
	imp := fileImport{file: filepath.Base(file), path: path, pos: fset.Position(spec.Pos())}
	if spec.Name != nil {
		imp.name = spec.Name.Name
	}
	if imp.name == "_" {
		return -1
	}
	s.imports = append(s.imports, imp)
	return len(s.imports) - 1
}

// addDecls records f's package-level names and its types' methods and
// fields.
func (s *siblings) addDecls(fset *token.FileSet, f *ast.File, cons constraint.Expr, samePackage bool) {
	add := func(m map[string][]sibDecl, id *ast.Ident) {
		if id.Name != "_" {
			m[id.Name] = append(m[id.Name], sibDecl{pos: fset.Position(id.Pos()), cons: cons})
		}
	}
	members := func(typ string) map[string][]sibDecl {
		if s.members[typ] == nil {
			s.members[typ] = map[string][]sibDecl{}
		}
		return s.members[typ]
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				if d.Name.Name != "init" {
					add(s.topLevel, d.Name)
				}
			} else if len(d.Recv.List) == 1 {
				if id := typeName(d.Recv.List[0].Type); id != nil && d.Name.Name != "_" {
					_, ptr := ast.Unparen(d.Recv.List[0].Type).(*ast.StarExpr)
					m := members(id.Name)
					m[d.Name.Name] = append(m[d.Name.Name], sibDecl{pos: fset.Position(d.Name.Pos()), cons: cons, method: true, ptrRecv: ptr})
				}
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					add(s.topLevel, sp.Name)
					if sp.Assign.IsValid() {
						if id, ok := ast.Unparen(sp.Type).(*ast.Ident); ok {
							s.aliases[sp.Name.Name] = id.Name
						}
					}
					if st, ok := sp.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, id := range field.Names {
								add(members(sp.Name.Name), id)
							}
							if len(field.Names) == 0 {
								if id := typeName(field.Type); id != nil {
									add(members(sp.Name.Name), id)
								}
								if samePackage {
									s.embeds[sp.Name.Name] = append(s.embeds[sp.Name.Name],
										sibEmbed{typ: field.Type, file: f, pos: fset.Position(field.Pos()), cons: cons})
								}
							}
						}
					}
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						add(s.topLevel, id)
					}
				}
			}
		}
	}
}

// member finds a declaration of member name of the type called typ in
// the unloaded files, under typ or any alias of it (type File = file: a
// method declared on *File is file's), for a file constrained by cons.
func (s *siblings) member(typ, name string, cons constraint.Expr) (token.Position, bool) {
	for _, t := range s.namesOf(typ) {
		if at, ok := find(s.members[t][name], cons); ok {
			return at, true
		}
	}
	return token.Position{}, false
}

// namesOf is typ and every alias that resolves to it, indexed on first
// use.
func (s *siblings) namesOf(typ string) []string {
	if s.aliasesOf == nil {
		s.aliasesOf = map[string][]string{}
		for a := range s.aliases {
			t := a
			for range 8 { // alias chains, without looping on a malformed cycle
				next, ok := s.aliases[t]
				if !ok {
					break
				}
				t = next
			}
			if t != a {
				s.aliasesOf[t] = append(s.aliasesOf[t], a)
			}
		}
		for _, as := range s.aliasesOf {
			sort.Strings(as)
		}
	}
	return append([]string{typ}, s.aliasesOf[typ]...)
}

// typeName is the name a receiver's or an embedded field's type gives: T
// of T, *T, (T), pkg.T, T[K] or T[K, V]; nil for any other type.
func typeName(x ast.Expr) *ast.Ident {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.ParenExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.SelectorExpr:
			return t.Sel
		case *ast.Ident:
			return t
		default:
			return nil
		}
	}
}

// embeddedImports are the import paths that unloaded files' embedded
// fields may come from (pkg.T in file_windows.go): the file's import
// named pkg, or, not knowing package names without loading them, each
// import of the file without a name.
func (s *siblings) embeddedImports() []string {
	var out []string
	for _, es := range s.embeds {
		for _, e := range es {
			t := e.typ
			if st, ok := t.(*ast.StarExpr); ok {
				t = st.X
			}
			sel, ok := t.(*ast.SelectorExpr)
			if !ok {
				continue
			}
			x, _ := sel.X.(*ast.Ident)
			for _, spec := range e.file.Imports {
				path, err := strconv.Unquote(spec.Path.Value)
				if err == nil && x != nil && (spec.Name == nil || spec.Name.Name == x.Name) && path != "C" && !contains(out, path) {
					out = append(out, path)
				}
			}
		}
	}
	return out
}

// resolveDotImports finds what the unloaded files' dot imports bring in:
// from the loaded package's imports when one of them is the same package,
// else by loading the rest from export data in one go (a test file's
// dot-imported assertion library, say), together with the packages more
// names (embeddedImports), so that s.known has them all.
func (s *siblings) resolveDotImports(cfg Config, p *packages.Package, dir string, dots []int, more []string) {
	known := map[string]*types.Package{}
	var walk func(ps []*types.Package)
	walk = func(ps []*types.Package) {
		for _, q := range ps {
			if known[q.Path()] == nil {
				known[q.Path()] = q
				walk(q.Imports())
			}
		}
	}
	if p.Types != nil {
		walk(p.Types.Imports())
	}
	var load []string
	for _, i := range dots {
		if path := s.imports[i].path; known[path] == nil && !contains(load, path) {
			load = append(load, path)
		}
	}
	for _, path := range more {
		if known[path] == nil && !contains(load, path) {
			load = append(load, path)
		}
	}
	if len(load) > 0 {
		sort.Strings(load)
		s.load(cfg, dir, load, known)
	}
	for _, i := range dots {
		s.imports[i].pkg = known[s.imports[i].path]
	}
	s.known = known
}

// load adds the packages at paths to known, from export data.
func (s *siblings) load(cfg Config, dir string, paths []string, known map[string]*types.Package) {
	pc := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: dir, Env: cfg.Env}
	if len(cfg.Tags) > 0 {
		pc.BuildFlags = []string{"-tags=" + strings.Join(cfg.Tags, ",")}
	}
	pkgs, err := packages.Load(pc, paths...)
	if err != nil {
		return // cannot tell; the test build will
	}
	for _, q := range pkgs {
		if q.Types != nil {
			known[q.PkgPath] = q.Types
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// importClash reports the import that keeps name from being declared at
// package level, in a file built with one constrained by cons: a file
// importing a package under that name, or dot-importing one that exports
// it.
func (s *siblings) importClash(name string, cons constraint.Expr) (string, bool) {
	for _, imp := range s.imports {
		var why string
		switch {
		case imp.name == "." && imp.pkg != nil:
			if obj := imp.pkg.Scope().Lookup(name); obj != nil && obj.Exported() {
				why = imp.file + " dot-imports " + imp.path + ", which declares " + name
			}
		case imp.name == name:
			why = imp.file + " imports " + imp.path + " as " + name
		}
		// The constraint last: evaluating it is the dear part.
		if why != "" && buildTogether(imp.cons, cons) {
			return why + " (" + shortPos(imp.pos) + ")", true
		}
	}
	return "", false
}

// shortPos prints a position as file:line, file being its base name.
func shortPos(pos token.Position) string {
	pos.Filename = pos.Filename[strings.LastIndexAny(pos.Filename, `/\`)+1:]
	pos.Column = 0
	return pos.String()
}
