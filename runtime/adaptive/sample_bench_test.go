package adaptive

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// The sample path: what a call that exits with a response time costs the
// limiter. Compare with -benchmem; it allocates nothing.

// BenchmarkWindowAdd counts response times of 0 to 63 ms.
func BenchmarkWindowAdd(b *testing.B) {
	w := newWindow()
	b.ReportAllocs()
	for i := range b.N {
		w.add(0, int64(i&63))
	}
}

func BenchmarkWindowAddParallel(b *testing.B) {
	w := newWindow()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := stat.Stripe()
		rt := int64(0)
		for pb.Next() {
			w.add(i, rt&63)
			rt++
		}
	})
}

// BenchmarkLimiterSample takes a slot and gives it back with a response
// time of 20 ms, past the first probe, the limit never reached; every
// thousandth call ends an interval and recomputes.
func BenchmarkLimiterSample(b *testing.B) {
	r := Rule{Resource: "bench", MinLimit: MaxMaxLimit, MaxLimit: MaxMaxLimit}.withDefaults()
	l := newLimiter(&r)
	now := int64(1)
	for ; l.probing.Load(); now += 10 {
		for range 10 {
			l.acquire(now)
			l.release(now, 20, now+20, 0)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%1000 == 0 {
			now += int64(r.SampleIntervalMs)
		}
		l.acquire(now)
		l.release(now, 20, now+20, 0)
	}
}
