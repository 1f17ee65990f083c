package generator

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Struct types outside the loaded package may embed a receiver too: a
// test double in x_test.go (package x or x_test), or a type of another
// package of the module (type O struct{ *p.T; closer }). A wrapper that
// gives T a member O already gets from another embedded field makes O's
// selector ambiguous (or hides that member), which breaks O's callers or
// drops an interface O satisfies. The type checker sees none of these
// files, so the module is read by syntax, once per run, and the embedders'
// other fields are resolved by types where they can be (the loaded
// package, its imports, packages loaded from export data on demand), by
// syntax otherwise.

// moduleScan is the syntax of one module's .go files, indexed by the type
// names their struct types embed.
type moduleScan struct {
	root  string
	fset  *token.FileSet
	refs  map[string][]embedRef     // embedded type name -> where it is embedded
	pkgs  map[string]*pkgSyntax     // dir + "\x00" + package name -> its declarations
	types map[string]*types.Package // by path, loaded from export data on demand; nil: could not
	cfg   Config
}

// scannedFile is one file of the module.
type scannedFile struct {
	path string
	dir  string
	ast  *ast.File
	cons constraint.Expr
}

// embedRef is one embedded field: outer embeds expr (name, or sel.name).
type embedRef struct {
	file  *scannedFile
	outer string
	expr  ast.Expr
	sel   string // the package name written before the type; "" for a bare name
}

// pkgSyntax is what one package's files declare, by syntax.
type pkgSyntax struct {
	structs map[string]structSyntax
	methods map[string]map[string]bool // type name -> its methods
}

type structSyntax struct {
	file *scannedFile
	st   *ast.StructType
	pos  token.Pos
}

// runState is what one Generate run shares between its packages.
type runState struct {
	cfg     Config
	modules map[string]*moduleScan // by module root
}

func newRunState(cfg Config) *runState {
	return &runState{cfg: cfg, modules: map[string]*moduleScan{}}
}

// scanFor returns the scan of the module holding dir, reading it on first
// use; nil outside a module.
func (rs *runState) scanFor(dir string) *moduleScan {
	root := moduleRoot(dir)
	if root == "" {
		return nil
	}
	if m, ok := rs.modules[root]; ok {
		return m
	}
	m := scanModule(rs.cfg, root)
	rs.modules[root] = m
	return m
}

func moduleRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

func scanModule(cfg Config, root string) *moduleScan {
	m := &moduleScan{root: root, fset: token.NewFileSet(), refs: map[string][]embedRef{},
		pkgs: map[string]*pkgSyntax{}, types: map[string]*types.Package{}, cfg: cfg}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || hasHeader(path) {
			return nil
		}
		f, err := parser.ParseFile(m.fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil
		}
		cons := fileConstraint(path, f)
		dropBodies(f)
		dropComments(f)
		m.add(&scannedFile{path: path, dir: filepath.Dir(path), ast: f, cons: cons})
		return nil
	})
	return m
}

func (m *moduleScan) add(sf *scannedFile) {
	key := sf.dir + "\x00" + sf.ast.Name.Name
	ps := m.pkgs[key]
	if ps == nil {
		ps = &pkgSyntax{structs: map[string]structSyntax{}, methods: map[string]map[string]bool{}}
		m.pkgs[key] = ps
	}
	for _, decl := range sf.ast.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				if id := typeName(d.Recv.List[0].Type); id != nil {
					if ps.methods[id.Name] == nil {
						ps.methods[id.Name] = map[string]bool{}
					}
					ps.methods[id.Name][d.Name.Name] = true
				}
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				ps.structs[ts.Name.Name] = structSyntax{file: sf, st: st, pos: ts.Pos()}
				for _, field := range st.Fields.List {
					if len(field.Names) > 0 {
						continue
					}
					ref := embedRef{file: sf, outer: ts.Name.Name, expr: field.Type}
					x := field.Type
					if s, ok := x.(*ast.StarExpr); ok {
						x = s.X
					}
					switch t := typeBase(x).(type) {
					case *ast.Ident:
						m.refs[t.Name] = append(m.refs[t.Name], ref)
					case *ast.SelectorExpr:
						if pid, ok := t.X.(*ast.Ident); ok {
							ref.sel = pid.Name
							m.refs[t.Sel.Name] = append(m.refs[t.Sel.Name], ref)
						}
					}
				}
			}
		}
	}
}

// typeBase strips type arguments: T[K] is T.
func typeBase(x ast.Expr) ast.Expr {
	switch t := x.(type) {
	case *ast.IndexExpr:
		return t.X
	case *ast.IndexListExpr:
		return t.X
	}
	return x
}

// outsideClash finds a struct type outside the loaded package (or in its
// unloaded files) that embeds the type name of package pkg (in dir), or
// an alias of it, depth deep, and would get the wrapper's member name
// ambiguous or hidden. loaded names the files the type checker saw.
func (m *moduleScan) outsideClash(pkg *types.Package, dir string, loaded map[string]bool, typNames []string, depth int, name string, cons constraint.Expr) (outer string, at token.Position, ok bool) {
	for _, tn := range typNames {
		for _, ref := range m.refs[tn] {
			if !m.refersTo(ref, pkg, dir, loaded) || !buildTogether(ref.file.cons, cons) {
				continue
			}
			if m.clashIn(ref, pkg, dir, depth, name) {
				return ref.outer, m.fset.Position(ref.expr.Pos()), true
			}
		}
	}
	return "", token.Position{}, false
}

// refersTo reports whether ref's embedded type is pkg's: a bare name in an
// unloaded file of pkg (its test files) or in a file dot-importing it, or
// a qualified name through an import of pkg.
func (m *moduleScan) refersTo(ref embedRef, pkg *types.Package, dir string, loaded map[string]bool) bool {
	f := ref.file
	if ref.sel == "" {
		if f.dir == dir && f.ast.Name.Name == pkg.Name() {
			return !loaded[filepath.Base(f.path)]
		}
		return dotImports(f.ast, pkg.Path())
	}
	for _, spec := range f.ast.Imports {
		if spec.Path.Value != strconv.Quote(pkg.Path()) {
			continue
		}
		if (spec.Name != nil && spec.Name.Name == ref.sel) || (spec.Name == nil && pkg.Name() == ref.sel) {
			return true
		}
	}
	return false
}

// clashIn reports whether the wrapper name, depth deep in ref.outer
// through ref's field, would clash with another member of ref.outer: none
// of its own, and one at least as deep through another embedded field.
func (m *moduleScan) clashIn(ref embedRef, pkg *types.Package, dir string, depth int, name string) bool {
	ps := m.pkgs[ref.file.dir+"\x00"+ref.file.ast.Name.Name]
	s, ok := ps.structs[ref.outer]
	if !ok {
		return false
	}
	if ps.methods[ref.outer][name] {
		return false // its own method wins
	}
	other := -1
	for _, field := range s.st.Fields.List {
		for _, id := range field.Names {
			if id.Name == name {
				return false // its own field wins
			}
		}
		if len(field.Names) > 0 {
			continue
		}
		if id := typeName(field.Type); id != nil && id.Name == name {
			return false // an embedded field of that name is its own too
		}
		if field.Type == ref.expr {
			continue
		}
		if d := m.depthIn(s.file, field.Type, pkg, dir, name, 0); d > 0 && (other < 0 || d < other) {
			other = d
		}
	}
	return other >= depth
}

// depthIn is how deep, in a struct embedding the type x (written in
// file), a member called name is: 1 for x's own, more for promoted ones;
// 0 when x has none, or cannot be told.
func (m *moduleScan) depthIn(file *scannedFile, x ast.Expr, pkg *types.Package, dir string, name string, level int) int {
	if level > 4 {
		return 0
	}
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	switch t := typeBase(x).(type) {
	case *ast.Ident:
		if file.dir == dir && file.ast.Name.Name == pkg.Name() {
			if tn, ok := pkg.Scope().Lookup(t.Name).(*types.TypeName); ok {
				return memberDepth(tn, name)
			}
		}
		ps := m.pkgs[file.dir+"\x00"+file.ast.Name.Name]
		if ps.methods[t.Name][name] {
			return 1
		}
		s, ok := ps.structs[t.Name]
		if !ok {
			return 0
		}
		best := 0
		for _, field := range s.st.Fields.List {
			for _, id := range field.Names {
				if id.Name == name {
					return 1
				}
			}
			if len(field.Names) == 0 {
				if id := typeName(field.Type); id != nil && id.Name == name {
					return 1
				}
				if d := m.depthIn(s.file, field.Type, pkg, dir, name, level+1); d > 0 && (best == 0 || d+1 < best) {
					best = d + 1
				}
			}
		}
		return best
	case *ast.SelectorExpr:
		pid, ok := t.X.(*ast.Ident)
		if !ok {
			return 0
		}
		for _, spec := range file.ast.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil || (spec.Name != nil && spec.Name.Name != pid.Name) {
				continue
			}
			p := pkg
			if path != pkg.Path() {
				p = m.typesOf(path, file.dir)
			}
			if p == nil || (spec.Name == nil && p.Name() != pid.Name) {
				continue
			}
			if tn, ok := p.Scope().Lookup(t.Sel.Name).(*types.TypeName); ok {
				return memberDepth(tn, name)
			}
		}
	}
	return 0
}

// memberDepth is how deep a member called name is in a struct embedding
// tn's type: 1 for tn's own, more for promoted ones, 0 for none.
func memberDepth(tn *types.TypeName, name string) int {
	t := tn.Type()
	var recv types.Type = types.NewPointer(t)
	if types.IsInterface(t) {
		recv = t
	}
	obj, index, _ := types.LookupFieldOrMethod(recv, false, tn.Pkg(), name)
	if obj == nil {
		return 0
	}
	return len(index)
}

// typesOf loads the package at path from export data, once.
func (m *moduleScan) typesOf(path, dir string) *types.Package {
	if p, ok := m.types[path]; ok {
		return p
	}
	m.types[path] = nil
	pc := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: dir, Env: m.cfg.Env}
	if len(m.cfg.Tags) > 0 {
		pc.BuildFlags = []string{"-tags=" + strings.Join(m.cfg.Tags, ",")}
	}
	if pkgs, err := packages.Load(pc, path); err == nil && len(pkgs) == 1 && pkgs[0].Types != nil && len(pkgs[0].Errors) == 0 {
		m.types[path] = pkgs[0].Types
	}
	return m.types[path]
}

// rel prints a position as path:line, the path relative to the module.
func (m *moduleScan) rel(pos token.Position) string {
	if r, err := filepath.Rel(m.root, pos.Filename); err == nil {
		pos.Filename = filepath.ToSlash(r)
	}
	pos.Column = 0
	return pos.String()
}
