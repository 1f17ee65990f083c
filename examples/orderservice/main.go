// Orderservice is sentinelgen's example: a net/http order service whose
// business methods are protected by generated wrappers, behind Sentinel's
// HTTP middleware, with rules in Java Sentinel's JSON format that are
// watched and hot-reloaded.
//
// What it shows, resource by resource:
//
//   - /api/order: the URL resource the middleware protects (a QPS rule; 429
//     beyond it), and getOrder, the business method it calls, limited by a
//     rule of its own and answered by its block handler with a degraded
//     order (the seed's Spring example, where the URL rule and the method
//     rule are checked separately);
//   - createOrder: a thread-count rule, at most two creations at once;
//   - payOrder: a call to a flaky payment provider through the outbound
//     transport, behind an error-ratio circuit breaker with a fallback;
//   - listOrders: a hot-parameter rule that limits each user apart, with a
//     higher limit for "vip".
//
// The same API is served over gRPC (orderspb/orders.proto), behind
// Sentinel's gRPC interceptors: each method is a resource named after its
// full method name, /orders.OrderService/GetOrder with a QPS rule of its own,
// refused with RESOURCE_EXHAUSTED beyond it.
//
// Usage:
//
//	go run ./examples/orderservice [-addr 127.0.0.1:8080] [-grpc-addr 127.0.0.1:9090] [-rules DIR] [-payments URL]
//	    [-java-dashboard HOST:PORT [-sentinel-api 127.0.0.1:8719] [-app orderservice]]
//	go run ./examples/orderservice -demo
//
// Without -rules the service copies its built-in rule files to a temporary
// directory and prints it: edit them while it runs. It prints the address
// of its live page, /sentinel/ (each resource's traffic, why it blocks,
// the breakers and the rules in force), and Prometheus metrics are at
// /metrics. With -java-dashboard the service also registers with a Java
// sentinel-dashboard server, which shows its traffic and sets its rules
// (written back to the rule files); -dashboard is that flag's old name.
// -demo starts the service on a free port, prints the page's address,
// drives load at it for about ten seconds, prints a table per second,
// edits a rule file mid-run, and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "orderservice:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("orderservice", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:8080", "listen address")
	grpcAddr := flags.String("grpc-addr", "127.0.0.1:9090", "gRPC listen address (\"\" serves no gRPC)")
	rulesDir := flags.String("rules", "", "directory of flow.json, degrade.json and paramflow.json (default: a temporary copy of the built-in rules)")
	payments := flags.String("payments", "", "payment provider URL (default: a built-in flaky provider)")
	demo := flags.Bool("demo", false, "run the demo: serve on a free port, drive load, print a table, edit a rule, exit")
	demoFor := flags.Duration("demo-duration", 10*time.Second, "how long the demo drives load")
	sentinelDash := addDashboardFlags(flags)
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), `Usage: orderservice [flags]

Serves the order API over HTTP and gRPC, protected by Sentinel rules. Its
live page is at http://ADDR/sentinel/ (each resource's traffic, why it
blocks, the breakers and the rules in force); Prometheus metrics are at
/metrics. -demo runs it on a free port under load for ten seconds.

Flags:`)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flags.Args())
	}

	if *demo {
		return runDemo(ctx, stdout, *demoFor)
	}

	cfg := config{addr: *addr, grpcAddr: *grpcAddr, rulesDir: *rulesDir, paymentsURL: *payments, createDelay: 200 * time.Millisecond}
	if cfg.rulesDir == "" {
		dir, err := os.MkdirTemp("", "orderservice-rules-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := writeDefaultRules(dir); err != nil {
			return err
		}
		cfg.rulesDir = dir
	}
	a, err := start(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "orderservice listening on %s, rules in %s\n", a.URL(), cfg.rulesDir)
	fmt.Fprintf(stdout, "live page: %s\n", a.PageURL())
	if a.GRPCAddr() != "" {
		fmt.Fprintf(stdout, "gRPC API (orders.OrderService) on %s\n", a.GRPCAddr())
	}
	stopDash, err := sentinelDash.start(ctx, cfg.rulesDir, stdout)
	if err != nil {
		_ = a.Close()
		return err
	}
	defer stopDash()
	select {
	case <-ctx.Done():
	case err := <-a.served:
		_ = a.Close()
		return err
	}
	return a.Close()
}
