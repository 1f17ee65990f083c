package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent, with the
// build events the go command adds).
type event struct {
	Time        time.Time
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string // a package's fail when it did not build
}

// maxTestOutput bounds what is kept of one test's output until it ends:
// the tail, which holds the failure and any panic.
const maxTestOutput = 64 << 10

// stream reads one module's `go test -json` output from in, prints the
// progress and each failure's output to out, and returns a result for
// every finished test and every package that failed outside its tests.
type stream struct {
	module  string
	out     io.Writer
	outputs map[string]*bytes.Buffer // package+"\x00"+test: output so far
	results []result
	other   []string // the last lines that were not events: the go command's own
}

// maxOtherLines is how many of the go command's own lines are kept, to say
// why it failed when no test or package did.
const maxOtherLines = 5

func readStream(module string, in io.Reader, out io.Writer) ([]result, error) {
	s, err := streamOf(module, in, out)
	return s.results, err
}

func streamOf(module string, in io.Reader, out io.Writer) (*stream, error) {
	s := &stream{module: module, out: out, outputs: map[string]*bytes.Buffer{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	start := time.Now()
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
			// Not an event: the go command's own lines ("go: downloading").
			fmt.Fprintf(out, "%s\n", line)
			if len(s.other) == maxOtherLines {
				s.other = s.other[1:]
			}
			s.other = append(s.other, string(line))
			continue
		}
		s.handle(e)
	}
	wall := time.Since(start).Seconds()
	s.results = append(s.results, result{Module: module, Outcome: outcomeModule, Elapsed: wall})
	return s, sc.Err()
}

func (s *stream) handle(e event) {
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "build-output":
		io.WriteString(s.out, e.Output)
	case "output":
		if e.Test == "" {
			if e.Output != "PASS\n" {
				io.WriteString(s.out, e.Output)
			}
			return
		}
		b := s.outputs[key]
		if b == nil {
			b = new(bytes.Buffer)
			s.outputs[key] = b
		}
		b.WriteString(e.Output)
		if b.Len() > maxTestOutput {
			tail := append([]byte("[... earlier output cut ...]\n"), b.Bytes()[b.Len()-maxTestOutput/2:]...)
			b.Reset()
			b.Write(tail)
		}
	case "pass", "fail", "skip":
		if e.Test == "" {
			s.endPackage(e)
			return
		}
		out := s.outputs[key]
		delete(s.outputs, key)
		r := result{Module: s.module, Package: e.Package, Test: e.Test, Outcome: e.Action, Elapsed: e.Elapsed}
		switch e.Action {
		case "fail":
			if out != nil {
				s.out.Write(out.Bytes())
			}
		case "skip":
			r.Reason = skipReason(out)
		}
		s.results = append(s.results, r)
	}
}

// endPackage records a package that failed where no failed test says so:
// it did not build, its binary died (a panic in a goroutine, a timeout)
// while tests were still running, or it failed outside any test.
func (s *stream) endPackage(e event) {
	var running []string
	prefix := e.Package + "\x00"
	for key, out := range s.outputs {
		if test, ok := strings.CutPrefix(key, prefix); ok {
			running = append(running, test)
			if e.Action == "fail" {
				s.out.Write(out.Bytes())
			}
			delete(s.outputs, key)
		}
	}
	if e.Action != "fail" {
		return
	}
	sort.Strings(running)
	r := result{Module: s.module, Package: e.Package, Outcome: outcomePackageFail, Elapsed: e.Elapsed}
	switch {
	case e.FailedBuild != "":
		r.Reason = "did not build: " + e.FailedBuild
	case len(running) > 0:
		// Whatever failed before, a crash or a timeout is a failure of
		// its own, and the tests after it never ran.
		r.Reason = "the test binary died (a panic or a timeout) while running " + strings.Join(running, ", ") + "; the tests after it did not run"
	default:
		for _, f := range s.results {
			if f.Package == e.Package && f.Outcome == "fail" {
				return // the failed tests say it
			}
		}
		r.Reason = "failed outside any test (TestMain, init, or a panic in a goroutine)"
	}
	s.results = append(s.results, r)
}

// skipReason is what a skipped test logged, without test2json's framing.
func skipReason(out *bytes.Buffer) string {
	if out == nil {
		return ""
	}
	var lines []string
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- ") {
			continue
		}
		lines = append(lines, line)
	}
	reason := strings.Join(lines, " ")
	if len(reason) > 300 {
		reason = reason[:300] + "..."
	}
	return reason
}
