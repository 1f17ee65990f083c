package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sentinelgen/sentinelgen/generator"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

const rulesUsage = "usage: sentinelgen rules check [-pkg patterns] [-also names] [-tags list] FILE...\n" +
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
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), rulesUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{}
	}
	files := fs.Args()
	if len(files) == 0 {
		fmt.Fprintln(env.stderr, "sentinelgen rules check: name at least one rule file")
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
	problems, err := datasource.CheckFiles(files, declared)
	if err != nil {
		return err
	}
	if printProblems(env, problems) {
		return problemsError{}
	}
	return nil
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
