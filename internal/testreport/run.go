package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

type config struct {
	module  string
	record  string
	summary bool
	args    []string // with summary, the record files; else the go test command to run, if any
}

// Outcomes besides test2json's pass, fail and skip.
const (
	outcomePackageFail = "package-fail" // failed with no failed test: build, panic, timeout
	outcomeModule      = "module"       // the module's wall time
)

// result is one record: a finished test, a package that failed outside its
// tests, or a module's wall time.
type result struct {
	Module  string
	Package string  `json:",omitempty"`
	Test    string  `json:",omitempty"`
	Outcome string  // pass, fail, skip, package-fail, module
	Elapsed float64 // seconds
	Reason  string  `json:",omitempty"` // why it was skipped, or why the package failed
}

func (r result) failed() bool { return r.Outcome == "fail" || r.Outcome == outcomePackageFail }

// run reads a stream (writing its records to cfg.record) or prints the
// summary of record files; failed says whether anything failed.
func run(cfg config, in io.Reader, out io.Writer) (failed bool, err error) {
	if cfg.summary {
		var all []result
		for _, name := range cfg.args {
			rs, err := readRecords(name)
			if err != nil {
				// Still a summary, and its closing line: with this failure.
				rs = append(rs, result{Module: name, Package: "(records)", Outcome: outcomePackageFail, Reason: err.Error()})
			}
			all = append(all, rs...)
		}
		return printSummary(out, all), nil
	}
	var results []result
	if len(cfg.args) > 0 {
		results, err = runCommand(cfg.module, cfg.args, out)
	} else {
		results, err = readStream(cfg.module, in, out)
	}
	if cfg.record != "" {
		if werr := writeRecords(cfg.record, results); werr != nil && err == nil {
			err = werr
		}
	}
	for _, r := range results {
		failed = failed || r.failed()
	}
	return failed, err
}

// runCommand runs the go test command args, reads its output as a stream
// and, when it exits non-zero with no failure to show for it (the go
// command refused to start, or was killed), records that as a failure.
func runCommand(module string, args []string, out io.Writer) ([]result, error) {
	cmd := exec.Command(args[0], args[1:]...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return []result{{Module: module, Package: "(go test)", Outcome: outcomePackageFail, Reason: err.Error()}}, nil
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		exited <- err
	}()
	s, err := streamOf(module, pr, out)
	_, _ = io.Copy(io.Discard, pr) // what a read error left, so the command can finish
	waitErr := <-exited
	if waitErr == nil {
		return s.results, err
	}
	for _, r := range s.results {
		if r.failed() {
			return s.results, err
		}
	}
	reason := "go test failed: " + waitErr.Error()
	if len(s.other) > 0 {
		reason += ": " + strings.Join(s.other, " | ")
	}
	return append(s.results, result{Module: module, Package: "(go test)", Outcome: outcomePackageFail, Reason: reason}), err
}

func writeRecords(name string, results []result) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func readRecords(name string) ([]result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		rs = append(rs, r)
	}
	return rs, sc.Err()
}
