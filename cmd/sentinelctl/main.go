package main

import (
	"fmt"
	"os"

	"github.com/sentinelgen/sentinelgen/internal/rulecheck"
)

func main() {
	cwd, err := os.Getwd()
	if err == nil {
		err = run(rulecheck.Env{Dir: cwd, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:])
	}
	os.Exit(rulecheck.ExitCode("sentinelctl", err, os.Stderr))
}

const usage = "usage: sentinelctl rules push (-etcd ADDR -key K | -redis ADDR -key K -channel C) [-kind name] [-timeout d] [-pkg patterns] [-also names] [-tags list] [-strict] FILE"

// run runs one command line. It reads no globals and writes only to env's
// writers.
func run(env rulecheck.Env, args []string) error {
	if len(args) >= 2 && args[0] == "rules" && args[1] == "push" {
		return runPush(env, args[2:])
	}
	fmt.Fprintln(env.Stderr, usage)
	fmt.Fprintln(env.Stderr, "\nsentinelctl operates a fleet of instances: rules push checks a rule file as `sentinelgen rules check` does\n"+
		"and publishes it to etcd or Redis (sentinelctl rules push -h lists the flags).")
	return rulecheck.UsageError{}
}
