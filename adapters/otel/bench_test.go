package sentinelotel_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The costs, side by side in one run:
//
//	go test -run x -bench . -benchmem -count 6
//
// EntryExit is the baseline (no OpenTelemetry, no histogram), and
// EntryRefused a refused call's;
// EntryExitRTHistogram turns the resource's histogram on; the Traced
// cases register Trace and call with a recording span in the context,
// admitted and refused; TracedCallSpans starts a span per call too.

func benchCalls(b *testing.B, r *runtime.Resource, ctx func() context.Context, refused bool) {
	b.ReportAllocs()
	for b.Loop() {
		e, blk := r.Entry(ctx())
		if (blk != nil) != refused {
			b.Fatalf("blocked: %v", blk)
		}
		e.Exit()
	}
}

func background() context.Context { return context.Background() }

// recording returns contexts with a recording span, a new span every
// spanCalls calls, as requests each have theirs: a span holds at most 128
// events, and one past them evicts the oldest, which would be measured
// instead of the call.
func recording(b *testing.B) func() context.Context {
	tp := sdktrace.NewTracerProvider()
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tracer := tp.Tracer("bench")
	var (
		ctx  context.Context
		span trace.Span
		n    int
	)
	b.Cleanup(func() { span.End() })
	return func() context.Context {
		if n%spanCalls == 0 {
			if span != nil {
				span.End()
			}
			ctx, span = tracer.Start(context.Background(), "caller")
		}
		n++
		return ctx
	}
}

// spanCalls is how many calls a benchmark's span sees: the cost of
// starting and ending it is a hundredth of it a call.
const spanCalls = 100

func BenchmarkEntryExit(b *testing.B) {
	benchCalls(b, runtime.Declare(runtime.ResourceSpec{Name: "otel-bench-plain"}), background, false)
}

func BenchmarkEntryExitRTHistogram(b *testing.B) {
	benchCalls(b, runtime.EnableRTHistogram("otel-bench-histogram"), background, false)
}

func BenchmarkEntryExitTracedAdmitted(b *testing.B) {
	defer sentinelotel.Trace()()
	benchCalls(b, runtime.Declare(runtime.ResourceSpec{Name: "otel-bench-traced"}), recording(b), false)
}

// refusing declares res with a flow rule that refuses every call.
func refusing(b *testing.B, res string) *runtime.Resource {
	if err := flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeQPS, Count: 0}}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
	return runtime.Declare(runtime.ResourceSpec{Name: res})
}

// A refused call without tracing, to read TracedRefused against.
func BenchmarkEntryRefused(b *testing.B) {
	benchCalls(b, refusing(b, "otel-bench-refused-plain"), background, true)
}

func BenchmarkEntryExitTracedRefused(b *testing.B) {
	r := refusing(b, "otel-bench-refused")
	defer sentinelotel.Trace()()
	benchCalls(b, r, recording(b), true)
}

func BenchmarkEntryExitTracedCallSpans(b *testing.B) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	defer sentinelotel.Trace(sentinelotel.WithCallSpans(tp))()
	benchCalls(b, runtime.Declare(runtime.ResourceSpec{Name: "otel-bench-call-spans"}), recording(b), false)
}
