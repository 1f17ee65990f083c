package sentinelotel_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func newTracer(t *testing.T) (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return rec, tp
}

// refuseAll loads a flow rule that refuses every call of res.
func refuseAll(t *testing.T, res ...string) {
	t.Helper()
	var rules []flow.Rule
	for _, r := range res {
		rules = append(rules, flow.Rule{Resource: r, Grade: flow.GradeQPS, Count: 0})
	}
	require.NoError(t, flow.LoadRules(rules))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

func endedNamed(rec *tracetest.SpanRecorder, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func TestARefusedCallAddsAnEventToTheCallersSpan(t *testing.T) {
	clocktest.Install(t)
	res := t.Name()
	refuseAll(t, res)
	rec, tp := newTracer(t)
	defer sentinelotel.Trace()()

	ctx, span := tp.Tracer("test").Start(context.Background(), "caller")
	ctx = runtime.EnterContext(ctx, "checkout", "mobile-app")
	_, b := runtime.Entry(ctx, res)
	require.NotNil(t, b)
	span.End()

	spans := endedNamed(rec, "caller")
	require.Len(t, spans, 1)
	require.Len(t, rec.Ended(), 1, "no span of its own without WithCallSpans")
	events := spans[0].Events()
	require.Len(t, events, 1)
	assert.Equal(t, "sentinel.block", events[0].Name)
	a := attrs(events[0].Attributes)
	assert.Equal(t, res, a["sentinel.resource"])
	assert.Equal(t, "flow", a["sentinel.block.type"])
	assert.Contains(t, a["sentinel.rule"], "grade QPS, count 0")
	assert.Equal(t, "mobile-app", a["sentinel.origin"])
	assert.Equal(t, codes.Unset, spans[0].Status().Code, "the caller decides its own status")
}

func TestABusinessErrorOnTheEntryIsRecordedOnTheCallersSpan(t *testing.T) {
	clocktest.Install(t)
	rec, tp := newTracer(t)
	defer sentinelotel.Trace()()

	ctx, span := tp.Tracer("test").Start(context.Background(), "caller")
	e, b := runtime.Entry(ctx, t.Name())
	require.Nil(t, b)
	e.SetError(errors.New("payment declined"))
	e.Exit()
	ok, b := runtime.Entry(ctx, t.Name())
	require.Nil(t, b)
	ok.Exit() // no error, no event
	span.End()

	events := endedNamed(rec, "caller")[0].Events()
	require.Len(t, events, 1)
	assert.Equal(t, "exception", events[0].Name)
	a := attrs(events[0].Attributes)
	assert.Equal(t, "payment declined", a["exception.message"])
	assert.Equal(t, t.Name(), a["sentinel.resource"])
}

func TestCallsThroughTheHTTPAdapterReachTheSpanWithoutAChangeToIt(t *testing.T) {
	clocktest.Install(t)
	refuseAll(t, "/refused")
	rec, tp := newTracer(t)
	defer sentinelotel.Trace()()

	mux := nethttp.NewServeMux()
	mux.HandleFunc("GET /refused", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	// What otelhttp does: a server span in the request's context.
	traced := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := tp.Tracer("test").Start(r.Context(), "server")
		defer span.End()
		mux.ServeHTTP(w, r.WithContext(ctx))
	})
	w := httptest.NewRecorder()
	traced.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/refused", nil))
	assert.Equal(t, http.StatusTooManyRequests, w.Code)

	events := endedNamed(rec, "server")[0].Events()
	require.Len(t, events, 1)
	assert.Equal(t, "sentinel.block", events[0].Name)
	assert.Equal(t, "/refused", attrs(events[0].Attributes)["sentinel.resource"])
}

func TestWithCallSpansEveryCallHasASpanUnderTheCallers(t *testing.T) {
	clocktest.Install(t)
	admitted, refused, failed := t.Name()+".admitted", t.Name()+".refused", t.Name()+".failed"
	refuseAll(t, refused)
	rec, tp := newTracer(t)
	defer sentinelotel.Trace(sentinelotel.WithCallSpans(tp))()

	ctx, caller := tp.Tracer("test").Start(context.Background(), "caller")
	e, b := runtime.Entry(ctx, admitted)
	require.Nil(t, b)
	inner := trace.SpanFromContext(e.Context())
	assert.NotEqual(t, caller.SpanContext().SpanID(), inner.SpanContext().SpanID(),
		"the business method runs under the call's span")
	e.Exit()
	_, b = runtime.Entry(ctx, refused)
	require.NotNil(t, b)
	e, _ = runtime.Entry(ctx, failed)
	e.Exit(runtime.WithError(errors.New("boom")))
	caller.End()

	for _, name := range []string{admitted, refused, failed} {
		spans := endedNamed(rec, name)
		require.Len(t, spans, 1, name)
		s := spans[0]
		assert.Equal(t, caller.SpanContext().SpanID(), s.Parent().SpanID(), name)
		assert.Equal(t, name, attrs(s.Attributes())["sentinel.resource"])
	}
	assert.Equal(t, codes.Unset, endedNamed(rec, admitted)[0].Status().Code)
	r := endedNamed(rec, refused)[0]
	assert.Equal(t, codes.Error, r.Status().Code)
	require.Len(t, r.Events(), 1)
	assert.Equal(t, "sentinel.block", r.Events()[0].Name)
	f := endedNamed(rec, failed)[0]
	assert.Equal(t, codes.Error, f.Status().Code)
	assert.Equal(t, "boom", f.Status().Description)
	assert.Empty(t, endedNamed(rec, "caller")[0].Events(), "the events are on the calls' spans")
}

// countingProvider counts the spans started through it.
type countingProvider struct {
	trace.TracerProvider
	started *atomic.Int64
}

func (p countingProvider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return countingTracer{p.TracerProvider.Tracer(name, opts...), p.started}
}

type countingTracer struct {
	trace.Tracer
	started *atomic.Int64
}

func (t countingTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	t.started.Add(1)
	return t.Tracer.Start(ctx, name, opts...)
}

func TestNothingIsTracedWhenTracingIsNotRegistered(t *testing.T) {
	clocktest.Install(t)
	res := t.Name()
	refuseAll(t, res)
	rec, tp := newTracer(t)
	started := &atomic.Int64{}
	counting := countingProvider{tp, started}

	remove := sentinelotel.Trace(sentinelotel.WithCallSpans(counting))
	remove()
	ctx, span := tp.Tracer("test").Start(context.Background(), "caller")
	_, b := runtime.Entry(ctx, res)
	require.NotNil(t, b)
	e, _ := runtime.Entry(ctx, res+".ok")
	e.Exit(runtime.WithError(errors.New("boom")))
	span.End()

	assert.Zero(t, started.Load(), "no span started")
	require.Len(t, rec.Ended(), 1)
	assert.Empty(t, rec.Ended()[0].Events(), "no event added")

	r := runtime.Declare(runtime.ResourceSpec{Name: res + ".allocs"})
	allocs := testing.AllocsPerRun(100, func() {
		e, _ := r.Entry(ctx)
		e.Exit()
	})
	assert.Equal(t, 1.0, allocs, "the entry, nothing for tracing, a recording span in the context notwithstanding")
}

func TestTracingWithoutCallSpansStartsNoSpan(t *testing.T) {
	clocktest.Install(t)
	_, tp := newTracer(t)
	started := &atomic.Int64{}
	defer sentinelotel.Trace()()
	ctx, span := countingProvider{tp, started}.Tracer("test").Start(context.Background(), "caller")
	defer span.End()
	e, b := runtime.Entry(ctx, t.Name())
	require.Nil(t, b)
	assert.Equal(t, span.SpanContext(), trace.SpanContextFromContext(e.Context()), "the caller's span stays current")
	e.Exit()
	assert.EqualValues(t, 1, started.Load(), "the caller's span only")
}

func TestACallWithoutARecordingSpanIsLeftAlone(t *testing.T) {
	clocktest.Install(t)
	res := t.Name()
	refuseAll(t, res)
	defer sentinelotel.Trace()()
	// A non-recording span (the no-op provider's) and no span at all.
	ctx, _ := noop.NewTracerProvider().Tracer("x").Start(context.Background(), "noop")
	for _, c := range []context.Context{ctx, context.Background()} {
		_, b := runtime.Entry(c, res)
		require.NotNil(t, b)
		e, _ := runtime.Entry(c, res+".ok")
		e.Exit(runtime.WithError(errors.New("boom")))
	}
}

func TestEachRefusalNamesItsOwnRule(t *testing.T) {
	clocktest.Install(t)
	a, b := t.Name()+".a", t.Name()+".b"
	refuseAll(t, a, b)
	rec, tp := newTracer(t)
	defer sentinelotel.Trace()()

	ctx, span := tp.Tracer("test").Start(context.Background(), "caller")
	for _, res := range []string{a, a, b, a} {
		_, blk := runtime.Entry(ctx, res)
		require.NotNil(t, blk)
	}
	span.End()
	var rules []string
	for _, ev := range endedNamed(rec, "caller")[0].Events() {
		rules = append(rules, attrs(ev.Attributes)["sentinel.rule"])
	}
	require.Len(t, rules, 4)
	for i, res := range []string{a, a, b, a} {
		assert.Contains(t, rules[i], `resource "`+res+`"`, "event %d", i)
	}
}
