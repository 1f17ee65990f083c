package sentinelotel_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// otlpCollector is an OTLP/HTTP trace receiver: it decodes each batch as
// a collector does and keeps the spans' names and the exception
// messages and statuses on them.
type otlpCollector struct {
	mu      sync.Mutex
	names   []string
	details []string // exception messages and status descriptions
}

func (c *otlpCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.names = append(c.names, s.GetName())
				if d := s.GetStatus().GetMessage(); d != "" {
					c.details = append(c.details, d)
				}
				for _, ev := range s.GetEvents() {
					for _, a := range ev.GetAttributes() {
						if a.GetKey() == "exception.message" {
							c.details = append(c.details, a.GetValue().GetStringValue())
						}
					}
				}
			}
		}
	}
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// A request path is the caller's: "%ff" decodes to a byte that is not
// UTF-8. It named the call's span as it was, and protobuf refuses a
// string that is not UTF-8, so the whole batch failed to encode: every
// other caller's spans in it were lost. Names, attributes, statuses and
// exception messages are made valid UTF-8, and the batch is exported
// whole, through the real OTLP/HTTP exporter.
func TestACallersBytesThatAreNotUTF8DoNotCostTheBatch(t *testing.T) {
	clocktest.Install(t)
	collector := &otlpCollector{}
	srv := httptest.NewServer(collector)
	defer srv.Close()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	defer func() { _ = tp.Shutdown(ctx) }()
	defer sentinelotel.Trace(sentinelotel.WithCallSpans(tp))()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) {})
	handler := nethttp.Middleware(nethttp.WithServeMux(mux), nethttp.WithUnmatchedPath())(mux)
	for _, path := range []string{"/ok", "/%ff%fe", "/ok"} {
		handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	e, b := runtime.Entry(ctx, "lookup")
	require.Nil(t, b)
	e.Exit(runtime.WithError(errors.New("no user named \xff\xfe")))

	require.NoError(t, tp.ForceFlush(ctx), "the batch is exported")
	collector.mu.Lock()
	defer collector.mu.Unlock()
	slices.Sort(collector.names)
	assert.Equal(t, []string{`/\xff\xfe`, "/ok", "/ok", "lookup"}, collector.names, "every span arrives, the bad bytes written \\xNN")
	assert.Equal(t, []string{`no user named \xff\xfe`, `no user named \xff\xfe`}, collector.details, "the status and the exception")
}

// FuzzCallerStringsStayUTF8: whatever a caller puts in a resource name,
// an origin or an error message, every string of the spans the adapter
// writes (name, attributes, status, events' attributes) is valid UTF-8,
// as OTLP's protobuf requires.
func FuzzCallerStringsStayUTF8(f *testing.F) {
	f.Add("/p\xff", "o\xfe", "bad \xc3(", true)
	f.Add("GET:/api/order", "", "", false)
	f.Add("\u202e\n", "\x00", "\xed\xa0\x80", true)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	f.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	f.Cleanup(sentinelotel.Trace(sentinelotel.WithCallSpans(tp)))
	f.Fuzz(func(t *testing.T, resource, origin, message string, refuse bool) {
		if resource == "" || strings.TrimSpace(resource) != resource {
			return
		}
		if refuse {
			require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: 0}}))
			defer func() { _ = flow.LoadRules(nil) }()
		}
		ctx := runtime.EnterContext(context.Background(), "fuzz", origin)
		if e, b := runtime.Entry(ctx, resource); b == nil {
			e.Exit(runtime.WithError(errors.New(message)))
		}
		for _, s := range rec.Ended() {
			require.True(t, utf8.ValidString(s.Name()), "%q", s.Name())
			require.True(t, utf8.ValidString(s.Status().Description), "%q", s.Status().Description)
			for _, kv := range s.Attributes() {
				require.True(t, utf8.ValidString(kv.Value.Emit()), "%s %q", kv.Key, kv.Value.Emit())
			}
			for _, ev := range s.Events() {
				for _, kv := range ev.Attributes {
					require.True(t, utf8.ValidString(kv.Value.Emit()), "%s %q", kv.Key, kv.Value.Emit())
				}
			}
		}
		rec.Reset()
	})
}
