package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// printSummary writes a table of each module's tests, then every failure
// (the deepest failed subtest, not each parent it failed), every skip with
// its reason, and a closing count; it reports whether anything failed.
//
// Tests are counted at the top level: a test with subtests is one test,
// failed if any subtest failed; a skipped subtest is counted as a skip too.
func printSummary(out io.Writer, all []result) (failed bool) {
	type counts struct {
		passed, failed, skipped int
		wall                    float64
	}
	var modules []string
	perModule := map[string]*counts{}
	count := func(module string) *counts {
		c := perModule[module]
		if c == nil {
			c = &counts{}
			perModule[module] = c
			modules = append(modules, module)
		}
		return c
	}
	var failures, skips []result
	var total counts
	for _, r := range all {
		c := count(r.Module)
		switch {
		case r.Outcome == outcomeModule:
			c.wall += r.Elapsed
		case r.Outcome == outcomePackageFail:
			c.failed++
			total.failed++
			failures = append(failures, r)
		case strings.Contains(r.Test, "/"):
			// A subtest: counted through its parent, listed when it is
			// the deepest failure; a skipped one is listed and counted,
			// since its parent passes without it.
			switch {
			case r.Outcome == "fail" && !hasFailedSubtest(all, r):
				failures = append(failures, r)
			case r.Outcome == "skip" && !passedElsewhere(all, r):
				c.skipped++
				total.skipped++
				skips = append(skips, r)
			}
		case r.Outcome == "pass":
			c.passed++
			total.passed++
		case r.Outcome == "fail":
			c.failed++
			total.failed++
			if !hasFailedSubtest(all, r) {
				failures = append(failures, r)
			}
		case r.Outcome == "skip" && passedElsewhere(all, r):
			// Skipped in one run (an allocation test under the race
			// detector) and passed in another: it ran.
		case r.Outcome == "skip":
			c.skipped++
			total.skipped++
			skips = append(skips, r)
		}
	}

	fmt.Fprintln(out, "== summary")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "module\tpassed\tfailed\tskipped\twall time\t")
	for _, m := range modules {
		c := perModule[m]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0fs\t\n", m, c.passed, c.failed, c.skipped, c.wall)
	}
	tw.Flush()
	printSlowest(out, all, 10)
	if len(failures) > 0 {
		fmt.Fprintf(out, "\n%d failed:\n", len(failures))
		for _, r := range failures {
			name := r.Test
			if name == "" {
				name = "(package) " + r.Reason
			}
			fmt.Fprintf(out, "  FAIL %s  %s  %s (%.1fs)\n", r.Module, r.Package, name, r.Elapsed)
		}
	}
	if len(skips) > 0 {
		fmt.Fprintf(out, "\n%d skipped:\n", len(skips))
		for _, r := range skips {
			fmt.Fprintf(out, "  SKIP %s  %s  %s: %s\n", r.Module, r.Package, r.Test, r.Reason)
		}
	}
	// The closing line CI reads: "N passed, N failed, N skipped".
	fmt.Fprintf(out, "\ntests: %d passed, %d failed, %d skipped\n", total.passed, total.failed, total.skipped)
	return total.failed > 0
}

// hasFailedSubtest reports whether a subtest of r failed too.
func hasFailedSubtest(all []result, r result) bool {
	prefix := r.Test + "/"
	for _, s := range all {
		if s.Outcome == "fail" && s.Package == r.Package && s.Module == r.Module && strings.HasPrefix(s.Test, prefix) {
			return true
		}
	}
	return false
}

// printSlowest lists the n slowest top-level tests: where the run's time
// goes, and what to make faster first.
func printSlowest(out io.Writer, all []result, n int) {
	var tests []result
	for _, r := range all {
		if r.Test != "" && !strings.Contains(r.Test, "/") {
			tests = append(tests, r)
		}
	}
	slices.SortFunc(tests, func(a, b result) int { return cmp.Compare(b.Elapsed, a.Elapsed) })
	if len(tests) > n {
		tests = tests[:n]
	}
	if len(tests) == 0 {
		return
	}
	fmt.Fprintf(out, "\nslowest tests:\n")
	for _, r := range tests {
		fmt.Fprintf(out, "  %6.1fs %s  %s  %s\n", r.Elapsed, r.Module, r.Package, r.Test)
	}
}

// passedElsewhere reports whether the test r skipped passed in another
// module's run: the same package run again, without the race detector.
func passedElsewhere(all []result, r result) bool {
	for _, o := range all {
		if o.Outcome == "pass" && o.Package == r.Package && o.Test == r.Test && o.Module != r.Module {
			return true
		}
	}
	return false
}
