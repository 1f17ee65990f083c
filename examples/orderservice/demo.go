package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// runDemo starts the service on a free port with a temporary copy of the
// built-in rules, drives load at it for d, prints what each resource
// admitted and blocked every second, and edits a rule file halfway.
func runDemo(ctx context.Context, out io.Writer, d time.Duration) error {
	dir, err := os.MkdirTemp("", "orderservice-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := writeDefaultRules(dir); err != nil {
		return err
	}
	// Block lines would drown the table: the demo logs warnings only, and
	// prints rule reloads itself.
	runtime.SetLogger(slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	defer runtime.SetLogger(nil)
	// Reloads print under the table's header; those of the first load, which
	// happen before it, are kept and printed under it as one line.
	var (
		tableMu      sync.Mutex
		tableStarted bool
		firstLoads   []string
	)
	onReload := func(ev datasource.Event) {
		tableMu.Lock()
		defer tableMu.Unlock()
		switch {
		case !tableStarted && ev.Loaded:
			firstLoads = append(firstLoads, fmt.Sprintf("%s (%s)", filepath.Base(ev.Path), plural(ev.Rules, "rule")))
		case ev.Loaded:
			fmt.Fprintf(out, "   -- %s reloaded: %s in force\n", filepath.Base(ev.Path), plural(ev.Rules, "rule"))
		default:
			fmt.Fprintf(out, "   -- %s refused, previous rules stay: %v\n", filepath.Base(ev.Path), ev.Err)
		}
	}
	breakers := newBreakerStates()
	degrade.RegisterStateChangeObserver("orderservice-demo", breakers.observe)
	defer degrade.UnregisterStateChangeObserver("orderservice-demo")
	a, err := start(ctx, config{addr: "127.0.0.1:0", grpcAddr: "127.0.0.1:0", rulesDir: dir, createDelay: 300 * time.Millisecond,
		pollEvery: 200 * time.Millisecond, onReload: onReload})
	if err != nil {
		return err
	}
	defer a.Close()
	g, err := dialGRPCLoad(a.GRPCAddr())
	if err != nil {
		return err
	}
	defer g.Close()
	fmt.Fprintf(out, "orderservice demo: serving %s and gRPC on %s, rules in %s, load for %s\n", a.URL(), a.GRPCAddr(), dir, d)
	fmt.Fprintf(out, "live page: %s (open it now: it shows why each resource blocks, while the demo runs)\n", a.PageURL())
	fmt.Fprintln(out, "load: GET /api/order 40/s; GET /api/orders 10/s as alice and 10/s as vip; POST pay 10/s; 5 clients creating orders; gRPC GetOrder 20/s")
	fmt.Fprintln(out, "rules: /api/order 20 QPS, getOrder 15 QPS, createOrder 2 threads, payOrder breaker at 50% errors, listOrders 5 QPS per user (vip 100), gRPC GetOrder 10 QPS")

	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	l := &loadDriver{client: client, base: a.URL()}
	var wg sync.WaitGroup
	l.every(ctx, &wg, 40, http.MethodGet, "/api/order?id=1", "")
	l.every(ctx, &wg, 10, http.MethodGet, "/api/orders?user=alice", "")
	l.every(ctx, &wg, 10, http.MethodGet, "/api/orders?user=vip", "")
	l.every(ctx, &wg, 10, http.MethodPost, "/api/order/2/pay", "")
	g.every(ctx, &wg, 20)
	for range 5 {
		wg.Go(func() {
			for ctx.Err() == nil {
				l.do(ctx, http.MethodPost, "/api/orders", `{"user":"carol","item":"pen","amount":3}`)
				select {
				case <-ctx.Done():
				case <-time.After(50 * time.Millisecond):
				}
			}
		})
	}

	// The script: the provider fails for a while (the breaker opens, the
	// fallback answers, the breaker probes and closes once it recovers),
	// and the /api/order limit is edited in its rule file.
	script := []struct {
		at   float64
		what string
		do   func() error
	}{
		{0.3, "payment provider starts failing", func() error { a.provider.SetFailing(true); return nil }},
		{0.5, "edit flow.json: /api/order count 20 -> 8", func() error { return editLimit(filepath.Join(dir, "flow.json"), "/api/order", 20, 8) }},
		{0.6, "payment provider recovers", func() error { a.provider.SetFailing(false); return nil }},
	}

	tableMu.Lock()
	fmt.Fprintf(out, "%4s  %-29s %7s %8s %10s  %s\n", "sec", "resource", "passed", "blocked", "avg RT ms", "breaker in that second")
	if len(firstLoads) > 0 {
		fmt.Fprintf(out, "   -- loaded at start: %s\n", strings.Join(firstLoads, ", "))
	}
	tableStarted = true
	tableMu.Unlock()
	start := time.Now()
	next := 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var demoErr error
	for sec := 1; ; sec++ {
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
		if ctx.Err() != nil {
			break
		}
		tableMu.Lock()
		printSecond(out, sec, breakers)
		for next < len(script) && time.Since(start) >= time.Duration(script[next].at*float64(d)) {
			fmt.Fprintf(out, "   -- %s\n", script[next].what)
			if err := script[next].do(); err != nil {
				demoErr = err
			}
			next++
		}
		tableMu.Unlock()
	}
	wg.Wait()
	fmt.Fprintf(out, "requests: %d answered 200, %d answered 429, %d other; provider saw %d charges\n",
		l.ok.Load(), l.limited.Load(), l.other.Load(), a.provider.Charges())
	g.summary(out)
	if l.ok.Load() == 0 {
		return fmt.Errorf("demo: no request succeeded")
	}
	return demoErr
}

// demoResources are the rows of the table, in order.
var demoResources = []string{"/api/order", grpcGetOrder, "getOrder", "createOrder", "payOrder", "listOrders"}

// printSecond prints each resource's figures for the last whole second,
// and the states its breaker was in during that second.
func printSecond(w io.Writer, sec int, breakers *breakerStates) {
	now := runtime.NowMillis()
	prev := now - now%1000 - 1000
	for _, name := range demoResources {
		r := runtime.LookupResource(name)
		if r == nil || r.ClusterNode() == nil {
			continue
		}
		var c stat.Counts
		for _, b := range r.ClusterNode().History(now) {
			if b.Start == prev {
				c = b
			}
		}
		rt := "-"
		if c.Success > 0 {
			rt = fmt.Sprintf("%.1f", float64(c.RT)/float64(c.Success))
		}
		fmt.Fprintf(w, "%4d  %-29s %7d %8d %10s  %s\n", sec, name, c.Pass, c.Block, rt, breakers.during(name, prev, prev+1000))
	}
}

// plural is "1 rule", "2 rules".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// editLimit rewrites the count of resource's rule in a flow rule file, as
// an operator would, with a write to a temporary file and a rename.
func editLimit(path, resource string, from, to int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	old := fmt.Sprintf(`"resource": %q, "limitApp": "default", "grade": 1, "count": %d`, resource, from)
	if !bytes.Contains(data, []byte(old)) {
		return fmt.Errorf("edit %s: no rule %q with count %d", path, resource, from)
	}
	data = bytes.Replace(data, []byte(old), []byte(strings.Replace(old, fmt.Sprintf(`"count": %d`, from), fmt.Sprintf(`"count": %d`, to), 1)), 1)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// loadDriver sends the demo's requests and counts the answers.
type loadDriver struct {
	client             *http.Client
	base               string
	ok, limited, other atomic.Int64
}

// every sends perSecond requests a second until ctx ends.
func (l *loadDriver) every(ctx context.Context, wg *sync.WaitGroup, perSecond int, method, path, body string) {
	every(ctx, wg, perSecond, func() { l.do(ctx, method, path, body) })
}

// every runs call perSecond times a second, each on its own goroutine,
// until ctx ends; wg waits for the calls in flight too.
func every(ctx context.Context, wg *sync.WaitGroup, perSecond int, call func()) {
	wg.Go(func() {
		t := time.NewTicker(time.Second / time.Duration(perSecond))
		defer t.Stop()
		var inflight sync.WaitGroup
		defer inflight.Wait()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				inflight.Go(call)
			}
		}
	})
}

func (l *loadDriver) do(ctx context.Context, method, path, body string) {
	req, err := http.NewRequestWithContext(ctx, method, l.base+path, strings.NewReader(body))
	if err != nil {
		return
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return // the demo is ending
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		l.ok.Add(1)
	case http.StatusTooManyRequests:
		l.limited.Add(1)
	default:
		l.other.Add(1)
	}
}
