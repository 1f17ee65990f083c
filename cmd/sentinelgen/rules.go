package main

import (
	"flag"
	"fmt"

	"github.com/sentinelgen/sentinelgen/internal/rulecheck"
)

const rulesUsage = "usage: sentinelgen rules check [-kind name] [-pkg patterns] [-also names] [-tags list] [-strict] FILE..."

// runRules is `sentinelgen rules check [flags] FILE...`: it validates rule
// files with the errors a load would give, and warns on rules for
// resources that no //sentinel:resource directive of the named packages
// declares (a typo in a rule file protects nothing, silently, in Java and
// in the Go port), failing on those; with -strict, on any warning.
func runRules(env runEnv, args []string) error {
	if len(args) > 0 && args[0] == "push" {
		// The fleet's clients (etcd, Redis) live in sentinelctl, so that
		// the generator a module adds as a tool brings none of them.
		fmt.Fprintln(env.stderr, "sentinelgen rules push: pushing rules moved to sentinelctl, which carries the etcd and Redis clients the generator does without:\n"+
			"\tgo run github.com/sentinelgen/sentinelgen/cmd/sentinelctl rules push [flags] FILE\n"+
			"(the same flags; sentinelctl rules push -h lists them)")
		return usageError{}
	}
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(env.stderr, rulesUsage)
		return usageError{}
	}
	fs := flag.NewFlagSet("sentinelgen rules check", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var flags rulecheck.Flags
	flags.Register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), rulesUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{}
	}
	files := fs.Args()
	problem := rulecheck.KindProblem(flags.Kind)
	if len(files) == 0 {
		problem = "name at least one rule file"
	}
	if problem != "" {
		fmt.Fprintln(env.stderr, "sentinelgen rules check:", problem)
		fmt.Fprintln(env.stderr, rulesUsage)
		return usageError{}
	}

	cenv := env.check()
	declared, err := rulecheck.Declared(cenv, flags)
	if err != nil {
		return err
	}
	failed := false
	for _, path := range files {
		f := rulecheck.CheckFile(rulecheck.Abs(cenv, path), flags.Kind, declared)
		rulecheck.Print(cenv, f)
		if f.Refused() {
			failed = true
			continue
		}
		// Silence would look the same as checking nothing: say what was
		// checked.
		against := ""
		if declared != nil {
			against = fmt.Sprintf(" against %d declared resources", len(declared))
		}
		rel := rulecheck.RelPath(env.dir, f.Path)
		if why := f.Failed(flags.Strict); why != "" {
			failed = true
			fmt.Fprintf(env.stderr, "%s: %s checked%s: loads, but fails the check: %s\n", rel, f.Summary(), against, why)
			continue
		}
		fmt.Fprintf(env.stdout, "%s: %s checked%s: valid%s\n", rel, f.Summary(), against, f.Warnings())
	}
	if failed {
		return problemsError{}
	}
	return nil
}
