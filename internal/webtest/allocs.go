package webtest

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The routes of an allocation measurement: one whose resource admits
// every request, one whose resource a flow rule of count 0 refuses.
const (
	AdmittedPath = "/alloc/admitted/42"
	RefusedPath  = "/alloc/refused/42"
)

// RouteAllocs is what one request costs in allocations: served by the
// framework bare (no middleware), and by the framework with the adapter,
// admitted and refused with the default answer.
type RouteAllocs struct {
	Bare, Admitted, Refused float64
}

// Serve returns a function that serves one GET of path to the
// framework, with the adapter in front of the route when protected, and
// returns the response's status. It is called once per path and
// measurement, so it should prepare the request and writer there and
// reuse them on every call: the figures are then the framework's and the
// adapter's own.
type Serve func(protected bool, path string) func() int

// MeasureAllocs measures an adapter's RouteAllocs. refusedResource is the
// resource the adapter names RefusedPath's route (its pattern as the
// framework writes it): a flow rule of count 0 refuses it until the test
// ends. It checks that a refusal never allocates more than an admission:
// under overload, most requests are refused.
func MeasureAllocs(t *testing.T, refusedResource string, serve Serve) RouteAllocs {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	Refuse(t, refusedResource)
	measure := func(protected bool, path string, want int) float64 {
		once := serve(protected, path)
		require.Equal(t, want, once(), "%s (protected %v)", path, protected)
		return testing.AllocsPerRun(200, func() { once() })
	}
	got := RouteAllocs{
		Bare:     measure(false, AdmittedPath, http.StatusOK),
		Admitted: measure(true, AdmittedPath, http.StatusOK),
		Refused:  measure(true, RefusedPath, http.StatusTooManyRequests),
	}
	assert.LessOrEqual(t, got.Refused, got.Admitted, "a refusal allocates no more than an admission")
	return got
}

// Refuse makes a flow rule of count 0 refuse every call of resource until
// the test or benchmark ends.
func Refuse(tb testing.TB, resource string) {
	tb.Helper()
	require.NoError(tb, flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: 0}}))
	tb.Cleanup(func() { require.NoError(tb, flow.LoadRules(nil)) })
}

// BenchRefused benchmarks serve, a Serve function's per-call function
// for a request that a rule refuses, checking that it is refused.
func BenchRefused(b *testing.B, serve func() int) {
	if code := serve(); code != http.StatusTooManyRequests {
		b.Fatalf("status %d, want 429", code)
	}
	b.ReportAllocs()
	stop := CPUTimer(b)
	for b.Loop() {
		serve()
	}
	stop()
}

// Writer is an http.ResponseWriter that keeps its status and one header
// map and drops bodies, for measuring allocations: writing to it
// allocates nothing once its header has every key.
type Writer struct {
	Code   int
	header http.Header
}

// NewWriter returns an empty Writer.
func NewWriter() *Writer { return &Writer{header: http.Header{}} }

func (w *Writer) Header() http.Header { return w.header }

func (w *Writer) WriteHeader(code int) {
	if w.Code == 0 {
		w.Code = code
	}
}

func (w *Writer) Write(p []byte) (int, error) {
	if w.Code == 0 {
		w.Code = http.StatusOK
	}
	return len(p), nil
}

// ServeHTTP returns a Serve function's per-call function for a
// net/http-style handler: it serves a GET of path to h on a Writer and
// returns the status of that response.
func ServeHTTP(h http.Handler, path string) func() int {
	req, _ := http.NewRequest(http.MethodGet, path, nil)
	w := NewWriter()
	return func() int {
		w.Code = 0
		h.ServeHTTP(w, req)
		if w.Code == 0 {
			return http.StatusOK
		}
		return w.Code
	}
}

// BenchEntryExit benchmarks a plain runtime.Entry and Exit of a resource
// without rules: the yardstick an adapter's cost over its framework is
// read against, in the adapter's own benchmark binary.
func BenchEntryExit(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	stop := CPUTimer(b)
	for b.Loop() {
		e, blocked := runtime.Entry(ctx, "bench-entry-exit")
		if blocked != nil {
			b.Fatal(blocked)
		}
		e.Exit()
	}
	stop()
}
