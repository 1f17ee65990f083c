package sentinelotel_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The costs, side by side in one run:
//
//	go test -run x -bench . -benchmem -count 6
//
// EntryExit is the baseline (no OpenTelemetry, no histogram);
// EntryExitRTHistogram turns the resource's histogram on; the Traced
// cases register Trace and call with a recording span in the context,
// admitted and refused; TracedCallSpans starts a span per call too.

func benchCalls(b *testing.B, r *runtime.Resource, ctx context.Context, refused bool) {
	b.ReportAllocs()
	for b.Loop() {
		e, blk := r.Entry(ctx)
		if (blk != nil) != refused {
			b.Fatalf("blocked: %v", blk)
		}
		e.Exit()
	}
}

// recordingContext is a context with a recording span, whose events are
// dropped past the SDK's limit so that a long run does not grow it.
func recordingContext(b *testing.B) context.Context {
	tp := sdktrace.NewTracerProvider()
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("bench").Start(context.Background(), "caller")
	b.Cleanup(func() { span.End() })
	return ctx
}

func BenchmarkEntryExit(b *testing.B) {
	benchCalls(b, runtime.Declare(runtime.ResourceSpec{Name: "otel-bench-plain"}), context.Background(), false)
}

func BenchmarkEntryExitRTHistogram(b *testing.B) {
	benchCalls(b, runtime.EnableRTHistogram("otel-bench-histogram"), context.Background(), false)
}

func BenchmarkEntryExitTracedAdmitted(b *testing.B) {
	defer sentinelotel.Trace()()
	benchCalls(b, runtime.Declare(runtime.ResourceSpec{Name: "otel-bench-traced"}), recordingContext(b), false)
}

func BenchmarkEntryExitTracedRefused(b *testing.B) {
	const res = "otel-bench-refused"
	if err := flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeQPS, Count: 0}}); err != nil {
		b.Fatal(err)
	}
	defer flow.LoadRules(nil)
	defer sentinelotel.Trace()()
	benchCalls(b, runtime.Declare(runtime.ResourceSpec{Name: res}), recordingContext(b), true)
}

func BenchmarkEntryExitTracedCallSpans(b *testing.B) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	defer sentinelotel.Trace(sentinelotel.WithCallSpans(tp))()
	benchCalls(b, runtime.Declare(runtime.ResourceSpec{Name: "otel-bench-call-spans"}), recordingContext(b), false)
}
