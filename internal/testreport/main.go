// Command testreport turns the `go test -json` output of every module into
// what a person reading CI needs: the usual progress as it runs, each failed
// test's output when it fails, and at the end one summary of every failure
// (module, package, test, time) and every skip with its reason, so that a
// failure in the first module never hides the modules after it.
//
// .ci/test runs it in two steps:
//
//	testreport -module adapters/gin -record gin.jsonl go test -json -race ./...
//	testreport -summary root.jsonl gin.jsonl ...
//
// The first step runs the go test command it is given, prints its output as
// it comes and writes one record a finished test or failed package; a
// command that exits non-zero with no failed test or package to show for
// it (the go command refused to start, or was killed) is recorded as a
// failure too. It exits 1 if anything failed. Without a command it reads
// `go test -json` output from standard input. The second step prints the
// summary of every record file, ending with the line
// "tests: N passed, N failed, N skipped" whatever it found, and exits 1 if
// anything failed.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.module, "module", ".", "the module whose `go test -json` output is on standard input")
	flag.StringVar(&cfg.record, "record", "", "the `file` to write the results to, for -summary")
	flag.BoolVar(&cfg.summary, "summary", false, "print the summary of the record files named as arguments")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: testreport -module M -record F [go test -json ...]\n       testreport -summary F...")
		flag.PrintDefaults()
	}
	flag.Parse()
	cfg.args = flag.Args()
	failed, err := run(cfg, os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
