package sentinelotel

import (
	"context"
	"reflect"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/sentinelgen/sentinelgen/internal/blocklog"
	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// BlockEventName is the name of the span event a refused call adds.
const BlockEventName = "sentinel.block"

// Attribute keys of the span events and call spans, in the sentinel.
// namespace (OpenTelemetry's convention for attributes of one library).
const (
	AttrResource     = attribute.Key("sentinel.resource")
	AttrBlockType    = attribute.Key("sentinel.block.type")
	AttrRule         = attribute.Key("sentinel.rule")
	AttrOrigin       = attribute.Key("sentinel.origin")
	AttrContext      = attribute.Key("sentinel.context")
	AttrResourceType = attribute.Key("sentinel.resource.type")
	AttrTraffic      = attribute.Key("sentinel.traffic")
)

// TraceOption configures Trace.
type TraceOption func(*tracing)

// WithCallSpans starts a span of tp's for every protected call, a child of
// the span in the call's context (if any), named after the resource: the
// business method runs with it as its current span, a refused call's
// event and a business error go on it, and its status is Error when the
// call was refused or failed. Without it, Trace adds to the spans the
// callers started and starts none.
func WithCallSpans(tp trace.TracerProvider) TraceOption {
	return func(t *tracing) { t.tracer = tp.Tracer(scopeName) }
}

// Trace registers the runtime Observer that puts protected calls on
// spans, and returns the function that removes it. From then on, wherever
// a call is opened (generated wrappers, nethttp, sentinelgrpc, the web
// framework adapters, runtime.Entry itself), when the call's context
// carries a recording span:
//
//   - a refused call adds the event "sentinel.block" to it, with the
//     resource, the kind of rule (sentinel.block.type: flow, degrade,
//     system, authority, paramflow, custom), the rule itself as its
//     String method writes it, and the caller's origin when known;
//   - a business error recorded on the entry (SetError, WithError, the
//     generated wrappers' error results) is recorded on it with
//     span.RecordError, as an "exception" event naming the resource.
//
// An admitted call without an error costs the observer a check of its
// error; nothing is looked up in its context. Before Trace, and after the
// returned function ran, the runtime does no work for tracing at all.
func Trace(opts ...TraceOption) (remove func()) {
	t := &tracing{}
	for _, o := range opts {
		o(t)
	}
	return runtime.AddObserver(t)
}

// tracing is the Observer Trace registers.
type tracing struct {
	tracer trace.Tracer // WithCallSpans', nil without it
	// lastRule is the last refusing rule written out: a rule that
	// refuses calls usually refuses many in a row, and writing it is
	// half of what an event costs.
	lastRule atomic.Pointer[ruleText]
}

type ruleText struct {
	rule runtime.Rule
	text string
}

// ruleText writes r as the block log does (blocklog.RuleText), once for
// a run of refusals by the same rule. Only a pointer is remembered: rules
// are published and never changed, and a rule of another type may not be
// comparable.
func (t *tracing) ruleText(r runtime.Rule) string {
	if last := t.lastRule.Load(); last != nil && last.rule == r {
		return last.text
	}
	text := blocklog.RuleText(r)
	if reflect.TypeOf(r).Kind() == reflect.Pointer {
		t.lastRule.Store(&ruleText{rule: r, text: text})
	}
	return text
}

// callSpanKey finds in a call's context the span WithCallSpans started for
// it, to end it when the call ends.
type callSpanKey struct{}

// callSpanContext carries the call's span both as the current span (the
// context tracer.Start returned) and under callSpanKey.
type callSpanContext struct {
	context.Context
	span trace.Span
}

func (c *callSpanContext) Value(key any) any {
	if key == (callSpanKey{}) {
		return c.span
	}
	return c.Context.Value(key)
}

func (t *tracing) Enter(c *runtime.Call) context.Context {
	if t.tracer == nil {
		return c.Context()
	}
	name := safetext.Label(c.Name())
	ctx, span := t.tracer.Start(c.Context(), name, trace.WithAttributes(
		AttrResource.String(name),
		AttrResourceType.String(c.ResourceType().String()),
		AttrTraffic.String(c.Traffic().String()),
		AttrContext.String(safetext.Label(c.ContextName())),
	), trace.WithSpanKind(trace.SpanKindInternal))
	return &callSpanContext{Context: ctx, span: span}
}

// callSpan is the span WithCallSpans started for c, nil when none.
func (t *tracing) callSpan(c *runtime.Call) trace.Span {
	if t.tracer == nil {
		return nil
	}
	s, _ := c.Context().Value(callSpanKey{}).(trace.Span)
	return s
}

func (t *tracing) Block(c *runtime.Call, b *runtime.BlockError) {
	own := t.callSpan(c)
	span := own
	if span == nil {
		span = trace.SpanFromContext(c.Context())
	}
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 0, 4)
		attrs = append(attrs,
			AttrResource.String(safetext.Label(c.Name())),
			AttrBlockType.String(b.BlockType().String()))
		if r := b.Rule(); r != nil {
			attrs = append(attrs, AttrRule.String(t.ruleText(r)))
		}
		if o := c.Origin(); o != "" {
			attrs = append(attrs, AttrOrigin.String(safetext.Label(o)))
		}
		span.AddEvent(BlockEventName, trace.WithAttributes(attrs...))
	}
	if own != nil {
		own.SetStatus(codes.Error, safetext.Log(b.Error(), 0))
		own.End()
	}
}

func (t *tracing) Exit(c *runtime.Call) {
	err := c.Err()
	own := t.callSpan(c)
	if err == nil && own == nil {
		return // the common case: nothing to say, nothing to end
	}
	span := own
	if span == nil {
		span = trace.SpanFromContext(c.Context())
	}
	if err != nil && span.IsRecording() {
		msg := safetext.Log(err.Error(), 0)
		recordError(span, err, msg, AttrResource.String(safetext.Label(c.Name())))
		if own != nil {
			own.SetStatus(codes.Error, msg)
		}
	}
	if own != nil {
		own.End()
	}
}

// recordError is span.RecordError(err) with msg, err's message made
// valid UTF-8, as the exception's message: an error's text may hold what
// a caller sent (a path, a header), and one string that is not UTF-8
// makes the whole OTLP batch the span is exported in fail to encode,
// losing every other caller's spans with it.
func recordError(span trace.Span, err error, msg string, attrs ...attribute.KeyValue) {
	attrs = append(attrs, semconv.ExceptionType(errorType(err)), semconv.ExceptionMessage(msg))
	span.AddEvent(semconv.ExceptionEventName, trace.WithAttributes(attrs...))
}

// errorType names err's type as the SDK's RecordError does: the package
// path and name of a named type, else the type's literal
// ("*errors.errorString").
func errorType(err error) string {
	t := reflect.TypeOf(err)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}
