// Example is a small order API protected by the sentinelgen runtime that
// exports its figures both ways: a Prometheus scrape at /metrics, and
// OpenTelemetry metrics and traces to stdout or over OTLP/HTTP, by flag.
// It lives in the adapters/otel module because the root module, where
// examples/orderservice lives, takes no OpenTelemetry dependency; the
// wiring is the same for that service or any other.
//
// Usage:
//
//	go run ./example [-addr 127.0.0.1:8080] [-otel stdout|otlp|none] [-otlp-endpoint 127.0.0.1:4318] [-interval 10s]
//	go run ./example -demo 3s
//
// GET /api/order/{id} is an inbound resource ("/api/order/{id}", 5 calls
// a second, 429 beyond), which calls getOrder, a resource of its own with
// its response-time histogram on. Each request runs under a server span
// (what otelhttp would start), so a refused request's span carries a
// "sentinel.block" event. -demo serves on a free port, sends requests for
// the given time, flushes the exporters and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

// options are the parsed flags.
type options struct {
	addr, otel, endpoint string
	interval, demo       time.Duration
}

func parse(args []string) (options, error) {
	var o options
	flags := flag.NewFlagSet("example", flag.ContinueOnError)
	flags.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen address")
	flags.StringVar(&o.otel, "otel", "stdout", "OpenTelemetry export: stdout, otlp (OTLP/HTTP) or none")
	flags.StringVar(&o.endpoint, "otlp-endpoint", "127.0.0.1:4318", "OTLP/HTTP collector host:port (with -otel otlp)")
	flags.DurationVar(&o.interval, "interval", 10*time.Second, "how often metrics are exported")
	flags.DurationVar(&o.demo, "demo", 0, "serve on a free port, send requests for this long, flush and exit")
	if err := flags.Parse(args); err != nil {
		return o, err
	}
	if flags.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", flags.Args())
	}
	switch o.otel {
	case "stdout", "otlp", "none":
	default:
		return o, fmt.Errorf("-otel %q: want stdout, otlp or none", o.otel)
	}
	if o.demo > 0 {
		o.addr = "127.0.0.1:0"
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	mp, tp, err := providers(ctx, o, stdout)
	if err != nil {
		return err
	}
	m, err := sentinelotel.RegisterMetrics(mp)
	if err != nil {
		return err
	}
	stopTracing := sentinelotel.Trace()
	// The providers shut down first: that exports what is left, the
	// demo's figures too, while the runtime is still registered.
	defer func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
		stopTracing()
		_ = m.Unregister()
	}()

	if err := flow.LoadRules([]flow.Rule{{Resource: "/api/order/{id}", Grade: flow.GradeQPS, Count: 5}}); err != nil {
		return err
	}
	getOrder := runtime.EnableRTHistogram("getOrder")

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector())
	mux := nethttp.NewServeMux()
	mux.HandleFunc("GET /api/order/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		e, b := getOrder.Entry(r.Context())
		if b != nil {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		if err != nil {
			e.SetError(err) // a business error, recorded on the request's span
			e.Exit()
			http.Error(w, "bad id", http.StatusBadRequest)
			return
		}
		e.Exit()
		fmt.Fprintf(w, `{"id":%d}`, id)
	})
	root := http.NewServeMux()
	root.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	root.Handle("/", serverSpans(tp.Tracer("example"), mux))

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: root, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	if o.demo > 0 {
		return demo(ctx, url, o.demo, stdout)
	}
	fmt.Fprintf(stdout, "listening on %s (Prometheus at %s/metrics, OpenTelemetry to %s)\n", url, url, o.otel)
	select {
	case <-ctx.Done():
		return nil
	case err := <-served:
		return err
	}
}

// providers makes the meter and tracer providers the -otel flag asks for.
func providers(ctx context.Context, o options, stdout io.Writer) (*sdkmetric.MeterProvider, *sdktrace.TracerProvider, error) {
	var (
		mexp sdkmetric.Exporter
		texp sdktrace.SpanExporter
		err  error
	)
	switch o.otel {
	case "stdout":
		if mexp, err = stdoutmetric.New(stdoutmetric.WithWriter(stdout)); err != nil {
			return nil, nil, err
		}
		if texp, err = stdouttrace.New(stdouttrace.WithWriter(stdout)); err != nil {
			return nil, nil, err
		}
	case "otlp":
		if mexp, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpoint(o.endpoint), otlpmetrichttp.WithInsecure()); err != nil {
			return nil, nil, err
		}
		if texp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(o.endpoint), otlptracehttp.WithInsecure()); err != nil {
			return nil, nil, err
		}
	case "none":
		return sdkmetric.NewMeterProvider(), sdktrace.NewTracerProvider(), nil
	}
	reader := sdkmetric.NewPeriodicReader(mexp, sdkmetric.WithInterval(o.interval),
		sdkmetric.WithProducer(sentinelotel.NewProducer()))
	return sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
		sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp)), nil
}

// serverSpans starts a server span per request, as otelhttp's handler
// does, so that the protected calls under it have a span to report to.
func serverSpans(tracer trace.Tracer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The path is the caller's: a byte that is not UTF-8 ("%ff") in a
		// span name would fail the whole OTLP batch it is exported in.
		name := strings.ToValidUTF8(r.Method+" "+r.URL.Path, "\uFFFD")
		ctx, span := tracer.Start(r.Context(), name, trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// demo sends requests to url for d, faster than the rule admits, with a
// bad id now and then, and prints what came back.
func demo(ctx context.Context, url string, d time.Duration, stdout io.Writer) error {
	codes := map[int]int{}
	deadline := time.Now().Add(d)
	for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
		id := strconv.Itoa(i)
		if i%7 == 3 {
			id = "x" + id
		}
		resp, err := http.Get(url + "/api/order/" + id)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		codes[resp.StatusCode]++
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(stdout, "demo: %d ok, %d bad id, %d refused (429)\n",
		codes[http.StatusOK], codes[http.StatusBadRequest], codes[http.StatusTooManyRequests])
	return nil
}
