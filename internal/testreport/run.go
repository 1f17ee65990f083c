package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

type config struct {
	module  string
	record  string
	summary bool
	files   []string
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
		for _, name := range cfg.files {
			rs, err := readRecords(name)
			if err != nil {
				return false, err
			}
			all = append(all, rs...)
		}
		return printSummary(out, all), nil
	}
	if len(cfg.files) > 0 {
		return false, errors.New("arguments are record files, for -summary")
	}
	results, err := readStream(cfg.module, in, out)
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
