// Command testreport turns the `go test -json` output of every module into
// what a person reading CI needs: the usual progress as it runs, each failed
// test's output when it fails, and at the end one summary of every failure
// (module, package, test, time) and every skip with its reason, so that a
// failure in the first module never hides the modules after it.
//
// .ci/test runs it in two steps:
//
//	go test -json ./... 2>&1 | testreport -module adapters/gin -record gin.jsonl
//	testreport -summary root.jsonl gin.jsonl ...
//
// The first step prints the stream and writes one record a finished test or
// failed package; it exits 1 if anything in the stream failed. The second
// prints the summary of every record file and exits 1 if any failed.
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
	flag.Parse()
	cfg.files = flag.Args()
	failed, err := run(cfg, os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
