package generator

import (
	"go/ast"
	"go/build/constraint"
	"path/filepath"
	"strings"
)

// buildConstraint returns the //go:build expression the output of source
// file f (named path) must carry: everything that decides whether the go
// command builds the source, which the output, a file of its own, would
// otherwise not repeat. That is the file's //go:build line, or its
// // +build lines when it has none (they still count then); the cgo an
// import "C" implies; and the GOOS and GOARCH its name implies
// (order_linux.go), which the output's name (order_linux_sentinel.go) no
// longer does. It returns "" when the file builds everywhere.
func buildConstraint(path string, f *ast.File) string {
	if x := fileConstraint(path, f); x != nil {
		return "//go:build " + x.String()
	}
	return ""
}

// fileConstraint is buildConstraint's expression, nil when the file
// builds everywhere.
func fileConstraint(path string, f *ast.File) constraint.Expr {
	// As go/build reads a header: a //go:build line counts anywhere
	// before the package clause, in the package doc too (the comment
	// group touching the clause); // +build lines only before the last
	// blank line there, so not in the doc.
	var goBuild, plusBuild []constraint.Expr
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			x, err := constraint.Parse(c.Text)
			switch {
			case err != nil:
			case constraint.IsGoBuild(c.Text):
				goBuild = append(goBuild, x)
			case constraint.IsPlusBuild(c.Text) && cg != f.Doc:
				plusBuild = append(plusBuild, x)
			}
		}
	}
	exprs := goBuild
	if len(goBuild) == 0 {
		exprs = plusBuild // several // +build lines must all hold
	}
	for _, spec := range f.Imports {
		if spec.Path.Value == `"C"` {
			exprs = appendConjunct(exprs, &constraint.TagExpr{Tag: "cgo"})
			break
		}
	}
	if x := nameConstraint(filepath.Base(path)); x != nil {
		exprs = appendConjunct(exprs, x)
	}
	if len(exprs) == 0 {
		return nil
	}
	x := exprs[0]
	for _, y := range exprs[1:] {
		x = &constraint.AndExpr{X: x, Y: y}
	}
	return x
}

// appendConjunct adds x's terms to the conjunction exprs, leaving out
// those it has already: //go:build cgo on a file importing "C" stays cgo,
// not cgo && cgo, and //go:build linux on x_linux.go stays linux.
func appendConjunct(exprs []constraint.Expr, x constraint.Expr) []constraint.Expr {
	var have []string
	for _, e := range exprs {
		for _, t := range conjuncts(e) {
			have = append(have, t.String())
		}
	}
	for _, t := range conjuncts(x) {
		if !contains(have, t.String()) {
			exprs = append(exprs, t)
			have = append(have, t.String())
		}
	}
	return exprs
}

// conjuncts are the terms of e's top-level conjunction.
func conjuncts(e constraint.Expr) []constraint.Expr {
	if and, ok := e.(*constraint.AndExpr); ok {
		return append(conjuncts(and.X), conjuncts(and.Y)...)
	}
	return []constraint.Expr{e}
}

// buildTogether reports whether some build includes files constrained by
// a and by b (nil: every build): whether, for some GOOS and GOARCH and
// some setting of the other tags, both hold. Past 8 other tags it says
// yes rather than try them all.
func buildTogether(a, b constraint.Expr) bool {
	if a == nil || b == nil {
		return true
	}
	return satisfiable(&constraint.AndExpr{X: a, Y: b})
}

// implies reports whether every build that includes files constrained by
// a (nil: every build) includes those constrained by b: whether no build
// has a without b. Past 8 other tags it says no.
func implies(a, b constraint.Expr) bool {
	if b == nil {
		return true
	}
	var x constraint.Expr = &constraint.NotExpr{X: b}
	if a != nil {
		x = &constraint.AndExpr{X: a, Y: x}
	}
	return !satisfiable(x)
}

// satisfiable reports whether some build satisfies x: some GOOS and
// GOARCH and some setting of the other tags. Past 8 other tags it says
// yes rather than try them all.
func satisfiable(x constraint.Expr) bool {
	var free, oses, arches []string
	collectTags(x, func(tag string) {
		switch {
		case knownOS[tag]:
			oses = appendNew(oses, tag)
		case knownArch[tag]:
			arches = appendNew(arches, tag)
		case tag != "unix":
			free = appendNew(free, tag)
		}
	})
	if len(free) > 8 {
		return true
	}
	// The systems to try: those named, those that imply one named, and
	// one unnamed system of each kind (unix or not), which stands for
	// all the others; likewise one unnamed architecture.
	for implied, by := range map[string]string{"android": "linux", "illumos": "solaris", "ios": "darwin"} {
		if contains(oses, by) {
			oses = appendNew(oses, implied)
		}
	}
	for _, rep := range []string{"linux", "aix", "freebsd", "netbsd", "windows", "plan9", "js"} {
		if !contains(oses, rep) {
			oses = append(oses, rep)
		}
	}
	for _, rep := range []string{"amd64", "arm64", "386"} {
		if !contains(arches, rep) {
			arches = append(arches, rep)
			break
		}
	}
	for _, goos := range oses {
		for _, goarch := range arches {
			for bits := 0; bits < 1<<len(free); bits++ {
				ok := x.Eval(func(tag string) bool {
					switch {
					case tag == goos || tag == goarch:
						return true
					case tag == "unix":
						return unixOS[goos]
					case knownOS[tag]:
						// As in go/build: android implies linux, illumos
						// solaris, ios darwin.
						return goos == "android" && tag == "linux" || goos == "illumos" && tag == "solaris" || goos == "ios" && tag == "darwin"
					case knownArch[tag]:
						return false
					}
					for i, f := range free {
						if f == tag {
							return bits&(1<<i) != 0
						}
					}
					return false
				})
				if ok {
					return true
				}
			}
		}
	}
	return false
}

func appendNew(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

func collectTags(x constraint.Expr, f func(string)) {
	switch x := x.(type) {
	case *constraint.TagExpr:
		f(x.Tag)
	case *constraint.NotExpr:
		collectTags(x.X, f)
	case *constraint.AndExpr:
		collectTags(x.X, f)
		collectTags(x.Y, f)
	case *constraint.OrExpr:
		collectTags(x.X, f)
		collectTags(x.Y, f)
	}
}

// unixOS are the GOOS values the unix tag matches (go/build's list).
var unixOS = set("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux",
	"netbsd", "openbsd", "solaris")

// nameConstraint is go/build's reading of a file name: name_GOOS_GOARCH.go,
// name_GOOS.go or name_GOARCH.go, the part before the first underscore
// never counting.
func nameConstraint(name string) constraint.Expr {
	name, _, _ = strings.Cut(name, ".")
	i := strings.Index(name, "_")
	if i < 0 {
		return nil
	}
	l := strings.Split(name[i:], "_")
	if n := len(l); n > 0 && l[n-1] == "test" {
		l = l[:n-1]
	}
	n := len(l)
	if n >= 2 && knownOS[l[n-2]] && knownArch[l[n-1]] {
		return &constraint.AndExpr{X: osTag(l[n-2]), Y: &constraint.TagExpr{Tag: l[n-1]}}
	}
	if n >= 1 {
		if knownOS[l[n-1]] {
			return osTag(l[n-1])
		}
		if knownArch[l[n-1]] {
			return &constraint.TagExpr{Tag: l[n-1]}
		}
	}
	return nil
}

// osTag is the tag a GOOS file suffix means. As in go/build, _android
// files are built for android only, though the android tag also matches
// linux; the output just repeats the tag.
func osTag(goos string) constraint.Expr { return &constraint.TagExpr{Tag: goos} }

// knownOS and knownArch are go/build's lists (internal/syslist), which a
// file-name suffix is checked against.
var knownOS = set("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
	"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")

var knownArch = set("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips",
	"mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv",
	"riscv64", "s390", "s390x", "sparc", "sparc64", "wasm")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
