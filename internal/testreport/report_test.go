package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportOfARealRun runs `go test -json` on testdata/sample, a module
// with a passing, a skipped and a failing test, a package that does not
// build and one whose goroutine panics, and checks that the stream and the
// summary say each.
func TestReportOfARealRun(t *testing.T) {
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "")
	t.Chdir(filepath.Join("testdata", "sample"))
	record := filepath.Join(t.TempDir(), "sample.jsonl")
	var progress bytes.Buffer
	failed, err := run(config{module: "sample", record: record, args: []string{"go", "test", "-json", "-count=1", "./..."}}, nil, &progress)
	require.NoError(t, err)
	assert.True(t, failed)
	assert.Contains(t, progress.String(), "got 247, want >= 285", "a failed test's output is shown")
	assert.Contains(t, progress.String(), "a goroutine's panic", "a panic is shown")
	assert.Contains(t, progress.String(), "undefined: undefinedName", "a build error is shown")
	assert.NotContains(t, progress.String(), "=== RUN   TestPasses", "a passing test's output is not")

	var summary bytes.Buffer
	failed, err = run(config{summary: true, args: []string{record}}, nil, &summary)
	require.NoError(t, err)
	assert.True(t, failed)
	s := summary.String()
	assert.Contains(t, s, "FAIL sample  sample/ok  TestFailsInOneSubtest/wrong")
	assert.NotContains(t, s, "TestFailsInOneSubtest (", "a parent is not listed beside its failed subtest")
	assert.Contains(t, s, "FAIL sample  sample/broken  (package) did not build")
	assert.Contains(t, s, "FAIL sample  sample/crash  (package) the test binary died (a panic or a timeout) while running TestPanics")
	assert.Contains(t, s, "FAIL sample  sample/crashafter  TestFailsFirst")
	assert.Contains(t, s, "FAIL sample  sample/crashafter  (package) the test binary died (a panic or a timeout) while running TestThenCrashes; the tests after it did not run",
		"a crash after another failure is a failure of its own")
	assert.Contains(t, s, "SKIP sample  sample/ok  TestSkips: ok_test.go:7: redis-server not found")
	assert.Contains(t, s, "SKIP sample  sample/ok  TestSkipsOneSubtest/sub: ok_test.go:", "a skipped subtest is listed")
	assert.Contains(t, s, "\ntests: 2 passed, 5 failed, 2 skipped\n")
}

// A go test command that fails before it tests anything (a go.mod it
// refuses, a process killed) leaves no failed test or package: the exit
// status is recorded as a failure, with what the go command said.
func TestACommandThatFailsWithoutEventsIsAFailure(t *testing.T) {
	record := filepath.Join(t.TempDir(), "broken.jsonl")
	var progress bytes.Buffer
	failed, err := run(config{module: "broken", record: record,
		args: []string{"sh", "-c", "echo 'go: go.mod requires go >= 9.99'; exit 1"}}, nil, &progress)
	require.NoError(t, err)
	assert.True(t, failed)
	assert.Contains(t, progress.String(), "go.mod requires go >= 9.99")

	var summary bytes.Buffer
	failed, err = run(config{summary: true, args: []string{record, filepath.Join(t.TempDir(), "missing.jsonl")}}, nil, &summary)
	require.NoError(t, err)
	assert.True(t, failed)
	assert.Contains(t, summary.String(), "FAIL broken  (go test)  (package) go test failed: exit status 1: go: go.mod requires go >= 9.99")
	assert.Contains(t, summary.String(), "missing.jsonl", "an unreadable record is a failure")
	assert.Contains(t, summary.String(), "\ntests: 0 passed, 2 failed, 0 skipped\n", "the closing line, whatever was found")
}

func TestSummaryOfCleanModules(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	require.NoError(t, writeRecords(a, []result{
		{Module: ".", Package: "p", Test: "TestA", Outcome: "pass", Elapsed: 1},
		{Module: ".", Package: "p", Test: "TestA/sub", Outcome: "pass"},
		{Module: ".", Outcome: outcomeModule, Elapsed: 30},
	}))
	require.NoError(t, writeRecords(b, []result{
		{Module: "adapters/gin", Package: "q", Test: "TestB", Outcome: "pass"},
		{Module: "adapters/gin", Package: "q", Test: "TestAllocs", Outcome: "skip", Reason: "the race detector allocates"},
		{Module: "adapters/gin (no race)", Package: "q", Test: "TestAllocs", Outcome: "pass"},
		{Module: "adapters/gin", Outcome: outcomeModule, Elapsed: 4},
	}))
	var out bytes.Buffer
	failed, err := run(config{summary: true, args: []string{a, b}}, nil, &out)
	require.NoError(t, err)
	assert.False(t, failed)
	assert.Contains(t, out.String(), "adapters/gin")
	assert.Contains(t, out.String(), "30s")
	assert.Contains(t, out.String(), "\ntests: 3 passed, 0 failed, 0 skipped\n", "a skip under the race detector that passed without it is a pass")
	assert.NotContains(t, out.String(), "FAIL")
}
