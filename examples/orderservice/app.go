package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
	"google.golang.org/grpc"
)

// defaultRules are the rule files the service ships with, in Java
// Sentinel's format.
//
//go:embed rules/*.json
var defaultRules embed.FS

// ruleFiles maps each watched file to its rule kind: one file per kind, as
// Spring's `spring.cloud.sentinel.datasource.<name>.file` with rule-type.
var ruleFiles = []struct {
	name string
	kind datasource.Kind
}{
	{"flow.json", datasource.Flow},
	{"degrade.json", datasource.Degrade},
	{"paramflow.json", datasource.ParamFlow},
}

// config is what the service is started with.
type config struct {
	addr        string        // listen address; "127.0.0.1:0" picks a free port
	grpcAddr    string        // gRPC listen address; "" serves no gRPC
	rulesDir    string        // the watched rule files
	paymentsURL string        // the payment provider; "" starts the built-in flaky one
	createDelay time.Duration // how long an order creation takes
	pollEvery   time.Duration // rule files are also polled this often; 0 for the default
	onReload    func(datasource.Event)
}

// app is a running order service.
type app struct {
	svc      *OrderService
	provider *FlakyProvider // nil with an external provider
	sources  map[string]*file.Source
	srv      *http.Server
	ln       net.Listener
	grpcSrv  *grpc.Server // nil without gRPC
	grpcLn   net.Listener
	served   chan error // what Serve returned, HTTP's or gRPC's
}

// start loads and watches the rules, and serves the API.
func start(ctx context.Context, cfg config) (*app, error) {
	a := &app{sources: map[string]*file.Source{}, served: make(chan error, 2)}
	ok := false
	defer func() {
		if !ok {
			_ = a.Close()
		}
	}()

	for _, rf := range ruleFiles {
		var opts []file.Option
		if cfg.pollEvery > 0 {
			opts = append(opts, file.WithPollInterval(cfg.pollEvery))
		}
		if cfg.onReload != nil {
			opts = append(opts, file.WithSubscriber(cfg.onReload))
		}
		src, err := file.Watch(ctx, filepath.Join(cfg.rulesDir, rf.name), rf.kind, opts...)
		if err != nil {
			return nil, err
		}
		// A bad file at start-up is reported and watched: the service runs
		// with no rules of that kind until a good version appears.
		if err := src.LastError(); err != nil {
			runtime.Logger().Warn("orderservice: rule file not loaded", "file", rf.name, "err", err)
		}
		a.sources[rf.name] = src
	}

	paymentsURL := cfg.paymentsURL
	if paymentsURL == "" {
		p, err := StartFlakyProvider()
		if err != nil {
			return nil, err
		}
		a.provider, paymentsURL = p, p.URL()
	}
	payments := NewPaymentClient(paymentsURL, nethttp.Transport(http.DefaultTransport))
	a.svc = NewOrderService(payments, cfg.createDelay)

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, err
	}
	a.ln = ln
	a.srv = &http.Server{Handler: newHandler(a.svc, a.observability()), ReadHeaderTimeout: 5 * time.Second}
	go func() { a.served <- a.srv.Serve(ln) }()
	if cfg.grpcAddr != "" {
		if err := a.serveGRPC(cfg.grpcAddr); err != nil {
			return nil, err
		}
	}
	ok = true
	return a, nil
}

// observability returns the routes that show the runtime: the live page
// and its JSON under /sentinel/, and Prometheus metrics at /metrics.
func (a *app) observability() map[string]http.Handler {
	var dashOpts []dashboard.Option
	var metricOpts []metrics.Option
	for _, rf := range ruleFiles {
		dashOpts = append(dashOpts, dashboard.WithSource(a.sources[rf.name]))
		metricOpts = append(metricOpts, metrics.WithSource(a.sources[rf.name]))
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(metricOpts...))
	return map[string]http.Handler{
		"/sentinel/": http.StripPrefix("/sentinel", dashboard.New(dashOpts...)),
		"/metrics":   promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
	}
}

// URL is where the API listens.
func (a *app) URL() string { return "http://" + a.ln.Addr().String() }

// PageURL is the address of the live page (runtime/dashboard).
func (a *app) PageURL() string { return a.URL() + "/sentinel/" }

// Close stops serving and watching.
func (a *app) Close() error {
	var errs []error
	if a.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := a.srv.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if a.grpcSrv != nil {
		a.stopGRPC()
	}
	for _, s := range a.sources {
		errs = append(errs, s.Close())
	}
	if a.provider != nil {
		errs = append(errs, a.provider.Close())
	}
	return errors.Join(errs...)
}

// writeDefaultRules copies the built-in rule files into dir.
func writeDefaultRules(dir string) error {
	entries, err := fs.ReadDir(defaultRules, "rules")
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := defaultRules.ReadFile("rules/" + e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return fmt.Errorf("write default rules: %w", err)
		}
	}
	return nil
}
