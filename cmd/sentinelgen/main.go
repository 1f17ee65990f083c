package main

import (
	"io"
	"os"

	"github.com/sentinelgen/sentinelgen/internal/rulecheck"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// The errors a command returns: a usage error (exit status 2), or
// problems printed already (exit status 1).
type (
	usageError    = rulecheck.UsageError
	problemsError = rulecheck.Reported
)

// exitCode maps run's error to the exit status, printing what was not
// printed yet.
func exitCode(err error, stderr io.Writer) int { return rulecheck.ExitCode("sentinelgen", err, stderr) }

// runEnv is what a command takes from its process. main passes the real
// one; tests pass their own, so that they run in parallel.
type runEnv struct {
	dir     string   // working directory
	environ []string // environment for the go command; nil inherits
	stdout  io.Writer
	stderr  io.Writer
	// goGenerate: run by go generate, which fails on a file of the
	// package removed under it, so orphans are emptied instead (a Stub).
	goGenerate bool
}

// check is the environment of a rule check.
func (env runEnv) check() rulecheck.Env {
	return rulecheck.Env{Dir: env.dir, Environ: env.environ, Stdout: env.stdout, Stderr: env.stderr}
}

// run runs one command line in the process's working directory.
func run(args []string, stdout, stderr io.Writer) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	// go generate sets GOFILE and GOPACKAGE for the commands it runs.
	goGenerate := os.Getenv("GOFILE") != "" && os.Getenv("GOPACKAGE") != ""
	return runWith(runEnv{dir: cwd, stdout: stdout, stderr: stderr, goGenerate: goGenerate}, args)
}

// runWith runs one command line. It reads no globals and writes only to
// env's writers and the files generation asks for.
// The first argument chooses a subcommand; anything else is the
// generator's command line.
func runWith(env runEnv, args []string) error {
	if len(args) > 0 && args[0] == "rules" {
		return runRules(env, args[1:])
	}
	if len(args) > 0 && args[0] == "version" {
		return runVersion(env, args[1:])
	}
	return runGenerate(env, args)
}
