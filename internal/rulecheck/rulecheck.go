// Package rulecheck is the checking of rule files that sentinelgen's
// `rules check` and sentinelctl's `rules push` share: the same flags,
// the same report and the same verdict, so that a push publishes only
// what a check passes. It loads packages (for -pkg) but imports no
// client of a server: the generator's users get no etcd, Redis or gRPC
// client in their module through it.
package rulecheck

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sentinelgen/sentinelgen/generator"
	"github.com/sentinelgen/sentinelgen/internal/suggest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Env is what a command takes from its process: the working directory,
// the environment for the go command (nil inherits) and where it writes.
type Env struct {
	Dir     string
	Environ []string
	Stdout  io.Writer
	Stderr  io.Writer
}

// Flags are the flags of a check: what the rules are checked against and
// how strictly.
type Flags struct {
	Kind   string // the documents' kind; "" tells it by each file's name or fields
	Pkgs   string // package patterns whose declared resources rules must name
	Tags   string // build tags for loading them
	Also   string // resource names declared elsewhere
	Strict bool   // fail on warnings too
}

// Register defines the flags on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Kind, "kind", "", "the documents' kind: "+KindList+" (default: told by each file's name or fields)")
	fs.StringVar(&f.Pkgs, "pkg", "", "comma-separated package patterns whose declared resources rules must name (e.g. ./...); a rule naming none of them fails the check; empty skips the cross-check")
	fs.StringVar(&f.Tags, "tags", "", "comma-separated build tags for loading the packages")
	fs.StringVar(&f.Also, "also", "", "comma-separated resource names declared elsewhere (HTTP routes such as /api/order), for the cross-check")
	fs.BoolVar(&f.Strict, "strict", false, "fail on any warning too (a rule that blocks every call, a misspelt field, what only Java's parsers accept)")
}

// Kinds are the kinds -kind names, when a file's name and fields do not
// tell (datasource.DetectKind).
var Kinds = map[string]datasource.Kind{
	"flow": datasource.Flow, "degrade": datasource.Degrade, "system": datasource.System,
	"authority": datasource.Authority, "paramFlow": datasource.ParamFlow, "adaptive": datasource.Adaptive,
	"combined": datasource.Combined,
}

// KindList names the kinds -kind takes.
const KindList = "flow, degrade, system, authority, paramFlow, adaptive or combined"

// KindProblem is what is wrong with -kind name, with a "did you mean";
// "" when it is empty or known.
func KindProblem(name string) string {
	if name == "" || Kinds[name] != nil {
		return ""
	}
	known := make([]string, 0, len(Kinds))
	for k := range Kinds {
		known = append(known, k)
	}
	if s := suggest.Nearest(name, known); s != "" {
		return fmt.Sprintf("unknown -kind %q; did you mean %s?", name, s)
	}
	return fmt.Sprintf("unknown -kind %q; want %s", name, KindList)
}

// File is one rule file checked.
type File struct {
	Path     string
	Data     []byte          // the bytes checked: what a push publishes
	Kind     datasource.Kind // nil when the file could not be read or told
	Rules    int             // how many rules it holds
	Problems []datasource.Problem
}

// CheckFile reads and checks one rule file as a data source would load it
// (datasource.ReadFile, DetectKind, Check: datasource.CheckFiles for one
// file), keeping the bytes it checked. kindName, when set, replaces the
// detection; declared, when not nil, are the resources rules must name.
func CheckFile(path, kindName string, declared []string) File {
	data, err := datasource.ReadFile(path, 0)
	kind := Kinds[kindName]
	if err == nil && kind == nil {
		kind, err = datasource.DetectKind(path, data)
	}
	if err != nil {
		// CheckFiles' own report of an unreadable or unrecognised file.
		problems, _ := datasource.CheckFiles([]string{path}, declared)
		if !hasError(problems) {
			problems = append(problems, datasource.Problem{File: path, Rule: -1, Severity: datasource.SeverityError, Message: err.Error()})
		}
		return File{Path: path, Problems: problems}
	}
	f := File{Path: path, Data: data, Kind: kind, Problems: datasource.Check(path, data, kind, declared)}
	if rs, err := kind.Decode(path, data); err == nil {
		f.Rules = rs.Len()
	}
	return f
}

func hasError(problems []datasource.Problem) bool {
	for _, p := range problems {
		if p.Severity == datasource.SeverityError {
			return true
		}
	}
	return false
}

// Refused reports whether a data source would refuse the file: its
// errors say why.
func (f File) Refused() bool { return hasError(f.Problems) }

// Failed says why a file that loads fails the check anyway, or "": a
// rule that names no declared resource (with -pkg: it protects nothing);
// any warning with -strict.
func (f File) Failed(strict bool) string {
	var undeclared, warnings int
	for _, p := range f.Problems {
		switch {
		case p.Undeclared:
			undeclared++
		case p.Severity == datasource.SeverityWarning:
			warnings++
		}
	}
	switch {
	case undeclared > 0:
		return plural(undeclared, "rule names", "rules name") + " no declared resource"
	case strict && warnings > 0:
		return plural(warnings, "warning", "warnings") + ", and -strict fails on warnings"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Print prints a file's errors to stderr and its warnings and notes to
// stdout, with paths relative to the working directory.
func Print(env Env, f File) {
	for _, p := range f.Problems {
		p.File = RelPath(env.Dir, p.File)
		if p.Severity == datasource.SeverityError {
			fmt.Fprintln(env.Stderr, p)
		} else {
			fmt.Fprintln(env.Stdout, p)
		}
	}
}

// Summary says what was checked: "3 flow rules", "1 rule of a combined
// document".
func (f File) Summary() string {
	noun := "rules"
	if f.Rules == 1 {
		noun = "rule"
	}
	if f.Kind == datasource.Combined {
		return fmt.Sprintf("%d %s of a combined document", f.Rules, noun)
	}
	return fmt.Sprintf("%d %s %s", f.Rules, f.Kind.Name(), noun)
}

// Warnings counts the file's warnings: " (2 warnings)", or "" (notes are
// not counted: they ask for no fix).
func (f File) Warnings() string {
	n := 0
	for _, p := range f.Problems {
		if p.Severity == datasource.SeverityWarning {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return " (" + plural(n, "warning", "warnings") + ")"
}

// Declared is what the packages' //sentinel:resource directives declare,
// and also; nil (no cross-check) when pkgs is empty.
func Declared(env Env, f Flags) ([]string, error) {
	if f.Pkgs == "" {
		return nil, nil
	}
	res, err := generator.Generate(generator.Config{
		Dir: env.Dir, Patterns: SplitList(f.Pkgs), Tags: SplitList(f.Tags), Env: env.Environ,
	})
	if err != nil {
		return nil, err
	}
	declared := SplitList(f.Also)
	for _, p := range res.Packages {
		declared = append(declared, p.Resources...)
	}
	sort.Strings(declared)
	return declared, nil
}

// Abs is path below the working directory when it is relative.
func Abs(env Env, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(env.Dir, path)
}

// RelPath shows path relative to the working directory when it is below
// it, as go vet does.
func RelPath(cwd, path string) string {
	if r, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// SplitList splits a comma-separated flag value, dropping blanks.
func SplitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
