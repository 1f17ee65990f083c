package sentineltest_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

// fakeTest is a testing.TB the tests and examples drive by hand: it has a
// name, keeps cleanups until finish, and records failures. Fatal ends the
// goroutine, as in a real test, so bodies run through run.
type fakeTest struct {
	testing.TB // nil: only the methods below are used
	name       string

	mu       sync.Mutex
	cleanups []func()
	failures []string
}

func newFakeTest(name string) *fakeTest { return &fakeTest{name: name} }

func (f *fakeTest) Name() string { return f.name }
func (f *fakeTest) Helper()      {}

func (f *fakeTest) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTest) Errorf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }

func (f *fakeTest) Fatal(args ...any) {
	f.fail(fmt.Sprint(args...))
	goruntime.Goexit()
}

func (f *fakeTest) Fatalf(format string, args ...any) {
	f.fail(fmt.Sprintf(format, args...))
	goruntime.Goexit()
}

func (f *fakeTest) fail(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, msg)
}

// Failures are the messages of Errorf, Fatal and Fatalf so far.
func (f *fakeTest) Failures() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.failures...)
}

// run runs body as the test's body, on its own goroutine so that Fatal
// can end it.
func (f *fakeTest) run(body func(t testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
}

// finish runs the cleanups, last registered first, as a test's end does.
func (f *fakeTest) finish() {
	f.mu.Lock()
	fns := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// runTest runs body as a whole test named name: body, then its cleanups.
func runTest(name string, body func(t testing.TB)) *fakeTest {
	f := newFakeTest(name)
	f.run(body)
	f.finish()
	return f
}

// call enters and exits resource once, returning the block if refused.
func call(resource string) *runtime.BlockError {
	e, b := runtime.Entry(context.Background(), resource)
	e.Exit()
	return b
}
