package metrics_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
)

// BenchmarkEntryExit is the hot path (Entry and Exit with one admitting
// flow rule) without a collector, with one scraped between batches of
// calls (timer stopped: the scrape's own cost is not the calls'), and with
// one scraped every 100 ms on another goroutine while the calls run. The
// collector reads the counters calls keep anyway, so the three cost the
// same per call.
func BenchmarkEntryExit(b *testing.B) {
	for _, bc := range []struct {
		name   string
		scrape func(b *testing.B, reg *prometheus.Registry) (every int, stop func())
	}{
		{"without collector", nil},
		{"collector scraped every 10000 calls", func(b *testing.B, reg *prometheus.Registry) (int, func()) {
			return 10000, func() {}
		}},
		{"collector scraped every 100ms concurrently", func(b *testing.B, reg *prometheus.Registry) (int, func()) {
			done := make(chan struct{})
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				t := time.NewTicker(100 * time.Millisecond)
				defer t.Stop()
				for {
					select {
					case <-done:
						return
					case <-t.C:
						if _, err := reg.Gather(); err != nil {
							b.Error(err)
						}
					}
				}
			}()
			return 0, func() { close(done); <-stopped }
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			name := "metrics.bench." + bc.name
			res := runtime.Declare(runtime.ResourceSpec{Name: name})
			if err := flow.LoadRules([]flow.Rule{{Resource: name, Grade: flow.GradeQPS, Count: 1e12}}); err != nil {
				b.Fatal(err)
			}
			defer flow.LoadRules(nil)
			reg := prometheus.NewRegistry()
			every, stop := 0, func() {}
			if bc.scrape != nil {
				reg.MustRegister(metrics.NewCollector())
				every, stop = bc.scrape(b, reg)
			}
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e, blk := res.Entry(ctx)
				if blk != nil {
					b.Fatal(blk)
				}
				e.Exit()
				if i++; every > 0 && i%every == 0 {
					b.StopTimer()
					if _, err := reg.Gather(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
			b.StopTimer()
			stop()
		})
	}
}

// BenchmarkScrape is one scrape of 1000 resources that each had calls in
// every second of the last minute: the collector's own cost, paid by the
// scraper, not by calls.
func BenchmarkScrape(b *testing.B) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	ctx := context.Background()
	res := make([]*runtime.Resource, 1000)
	for i := range res {
		res[i] = runtime.Declare(runtime.ResourceSpec{Name: "metrics.scrape." + strconv.Itoa(i)})
	}
	for range 60 {
		for _, r := range res {
			e, _ := r.Entry(ctx)
			e.Exit()
		}
		clk.Advance(time.Second)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector())
	b.ReportAllocs()
	for b.Loop() {
		clk.Advance(100 * time.Millisecond)
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
