package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// usageError is a command line that does not parse: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// problemsError says problems were reported already: exit status 1,
// nothing more to print.
type problemsError struct{}

func (problemsError) Error() string { return "problems reported" }

// exitCode maps run's error to the exit status, printing what was not
// printed yet.
func exitCode(err error, stderr io.Writer) int {
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		if usage.msg != "" {
			fmt.Fprintln(stderr, "sentinelgen:", usage.msg)
		}
		return 2
	case errors.Is(err, problemsError{}):
		return 1
	}
	fmt.Fprintln(stderr, "sentinelgen:", err)
	return 1
}

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
