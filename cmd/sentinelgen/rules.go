package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sentinelgen/sentinelgen/generator"
	"github.com/sentinelgen/sentinelgen/internal/suggest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

const rulesUsage = "usage: sentinelgen rules check [-kind name] [-pkg patterns] [-also names] [-tags list] FILE...\n" +
	"       sentinelgen rules push (-etcd ADDR -key K | -redis ADDR -key K -channel C) [check flags] FILE"

// runRules is `sentinelgen rules check [-pkg patterns] [-tags list] FILE...`:
// it validates rule files with the errors a load would give, and warns on
// rules for resources that no //sentinel:resource directive of the named
// packages declares (a typo in a rule file protects nothing, silently, in
// Java and in the Go port).
func runRules(env runEnv, args []string) error {
	if len(args) > 0 && args[0] == "push" {
		return runRulesPush(env, args[1:])
	}
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(env.stderr, rulesUsage)
		return usageError{}
	}
	fs := flag.NewFlagSet("sentinelgen rules check", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	pkgs := fs.String("pkg", "", "comma-separated package patterns whose declared resources rules must name (e.g. ./...); empty skips the cross-check")
	tags := fs.String("tags", "", "comma-separated build tags for loading the packages")
	also := fs.String("also", "", "comma-separated resource names declared elsewhere (HTTP routes such as /api/order), for the cross-check")
	kindName := fs.String("kind", "", "the documents' kind: "+kindList+" (default: told by each file's name or fields)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), rulesUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{}
	}
	files := fs.Args()
	problem := kindProblem(*kindName)
	if len(files) == 0 {
		problem = "name at least one rule file"
	}
	if problem != "" {
		fmt.Fprintln(env.stderr, "sentinelgen rules check:", problem)
		fmt.Fprintln(env.stderr, rulesUsage)
		return usageError{}
	}
	for i, f := range files {
		if !filepath.IsAbs(f) {
			files[i] = filepath.Join(env.dir, f)
		}
	}

	declared, err := declaredResources(env, *pkgs, *tags, *also)
	if err != nil {
		return err
	}
	failed := false
	for _, path := range files {
		_, kind, rules, problems := checkFile(path, *kindName, declared)
		if printProblems(env, problems) {
			failed = true
			continue
		}
		// Silence would look the same as checking nothing: say what was
		// checked.
		against := ""
		if declared != nil {
			against = fmt.Sprintf(" against %d declared resources", len(declared))
		}
		fmt.Fprintf(env.stdout, "%s: %s checked%s: valid%s\n", relPath(env.dir, path), countRules(rules, kind), against, countWarnings(problems))
	}
	if failed {
		return problemsError{}
	}
	return nil
}

// checkFile reads and checks one rule file as a data source would load
// it (datasource.ReadFile, DetectKind, Check: datasource.CheckFiles for
// one file), keeping the bytes it checked, which are the bytes rules push
// publishes, and how many rules they hold. kindName, when set, replaces
// the detection.
func checkFile(path, kindName string, declared []string) ([]byte, datasource.Kind, int, []datasource.Problem) {
	data, err := datasource.ReadFile(path, 0)
	kind := ruleKinds[kindName]
	if err == nil && kind == nil {
		kind, err = datasource.DetectKind(path, data)
	}
	if err != nil {
		// CheckFiles' own report of an unreadable or unrecognised file.
		problems, _ := datasource.CheckFiles([]string{path}, declared)
		if !hasError(problems) {
			problems = append(problems, datasource.Problem{File: path, Rule: -1, Severity: datasource.SeverityError, Message: err.Error()})
		}
		return nil, nil, 0, problems
	}
	problems := datasource.Check(path, data, kind, declared)
	rules := 0
	if rs, err := kind.Decode(path, data); err == nil {
		rules = rs.Len()
	}
	return data, kind, rules, problems
}

func hasError(problems []datasource.Problem) bool {
	for _, p := range problems {
		if p.Severity == datasource.SeverityError {
			return true
		}
	}
	return false
}

// ruleKinds are the kinds -kind names, when a file's name and fields do
// not tell (DetectKind).
var ruleKinds = map[string]datasource.Kind{
	"flow": datasource.Flow, "degrade": datasource.Degrade, "system": datasource.System,
	"authority": datasource.Authority, "paramFlow": datasource.ParamFlow, "adaptive": datasource.Adaptive,
	"combined": datasource.Combined,
}

const kindList = "flow, degrade, system, authority, paramFlow, adaptive or combined"

// kindProblem is what is wrong with -kind name, with a "did you mean";
// "" when it is empty or known.
func kindProblem(name string) string {
	if name == "" || ruleKinds[name] != nil {
		return ""
	}
	known := make([]string, 0, len(ruleKinds))
	for k := range ruleKinds {
		known = append(known, k)
	}
	if s := suggest.Nearest(name, known); s != "" {
		return fmt.Sprintf("unknown -kind %q; did you mean %s?", name, s)
	}
	return fmt.Sprintf("unknown -kind %q; want %s", name, kindList)
}

// countRules says how many rules of what kind a file holds: "3 flow
// rules", "1 rule of a combined document".
func countRules(n int, kind datasource.Kind) string {
	noun := "rules"
	if n == 1 {
		noun = "rule"
	}
	if kind == datasource.Combined {
		return fmt.Sprintf("%d %s of a combined document", n, noun)
	}
	return fmt.Sprintf("%d %s %s", n, kind.Name(), noun)
}

// countWarnings is " (2 warnings)" (notes not counted: they are not
// asking for a fix), or "".
func countWarnings(problems []datasource.Problem) string {
	n := 0
	for _, p := range problems {
		if p.Severity == datasource.SeverityWarning {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return " (1 warning)"
	}
	return fmt.Sprintf(" (%d warnings)", n)
}

// declaredResources is what the packages' //sentinel:resource directives
// declare, and also; nil (no cross-check) when pkgs is empty.
func declaredResources(env runEnv, pkgs, tags, also string) ([]string, error) {
	if pkgs == "" {
		return nil, nil
	}
	res, err := generator.Generate(generator.Config{
		Dir: env.dir, Patterns: splitList(pkgs), Tags: splitList(tags), Env: env.environ,
	})
	if err != nil {
		return nil, err
	}
	declared := splitList(also)
	for _, p := range res.Packages {
		declared = append(declared, p.Resources...)
	}
	sort.Strings(declared)
	return declared, nil
}

// printProblems prints errors to stderr and warnings to stdout, and
// reports whether there was an error.
func printProblems(env runEnv, problems []datasource.Problem) (failed bool) {
	for _, p := range problems {
		p.File = relPath(env.dir, p.File)
		if p.Severity == datasource.SeverityError {
			failed = true
			fmt.Fprintln(env.stderr, p)
		} else {
			fmt.Fprintln(env.stdout, p)
		}
	}
	return failed
}

func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
