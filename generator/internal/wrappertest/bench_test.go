package wrappertest

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// handPlain is what a careful engineer writes by hand for plain: the code
// Plain expands to, minus the generality (no panic recording, no argument
// boxing check). The bar: a wrapper costs at most 1 allocation and 10%
// over this.
var handResource = runtime.Declare(runtime.ResourceSpec{Name: "apiPlainByHand", Params: []string{"id"}})

func handPlain(ctx context.Context, id int64) (int64, error) {
	e, b := handResource.Entry(ctx)
	if b != nil {
		return 0, b
	}
	defer e.Exit()
	n, err := plain(e.Context(), id)
	e.SetError(err)
	return n, err
}

func BenchmarkWrapper(b *testing.B) {
	ctx := context.Background()
	// Warm both up first: whichever ran first would otherwise pay for the
	// process's start (node creation, the clock, CPU frequency).
	for range 200_000 {
		_, _ = Plain(ctx, 42)
		_, _ = handPlain(ctx, 42)
	}
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Plain(ctx, 42); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := handPlain(ctx, 42); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// handLookup is what a careful engineer writes by hand to protect a
// Lookup: the code ProtectLookup's Get expands to, minus the generality.
// The bar: a decorated method costs at most 10% over this.
type handLookup struct{ next Lookup }

var handLookupResource = runtime.Declare(runtime.ResourceSpec{Name: "apiLookupByHand", Params: []string{"id"}})

func (h *handLookup) Get(ctx context.Context, id int64) (int64, error) {
	e, b := handLookupResource.Entry(ctx)
	if b != nil {
		return 0, b
	}
	defer e.Exit()
	n, err := h.next.Get(e.Context(), id)
	e.SetError(err)
	return n, err
}

// freeLookup costs nothing.
type freeLookup struct{}

func (freeLookup) Get(_ context.Context, id int64) (int64, error) { return id, nil }

func BenchmarkDecorated(b *testing.B) {
	ctx := context.Background()
	var generated, hand Lookup = ProtectLookup(freeLookup{}), &handLookup{next: freeLookup{}}
	for range 200_000 { // warm both up, as BenchmarkWrapper does
		_, _ = generated.Get(ctx, 42)
		_, _ = hand.Get(ctx, 42)
	}
	for _, bc := range []struct {
		name string
		l    Lookup
	}{{"generated", generated}, {"hand-written", hand}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.l.Get(ctx, 42); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecoratedInterleaved calls the decorated value and the
// hand-written one in alternating blocks of 1,000 calls, timing each
// block, so that both run on the same machine state: on a shared machine,
// sub-benchmarks run seconds apart can differ by 2x from load alone. It
// reports each one's ns per call and their ratio (the bar: at most 1.10);
// an op is a block of each, so B/op and allocs/op are 2,000 calls'.
func BenchmarkDecoratedInterleaved(b *testing.B) {
	ctx := context.Background()
	var generated, hand Lookup = ProtectLookup(freeLookup{}), &handLookup{next: freeLookup{}}
	const block = 1000
	var spent [2]time.Duration
	b.ReportAllocs()
	order := [2]int{0, 1}
	for b.Loop() {
		order[0], order[1] = order[1], order[0] // neither always runs first
		for _, i := range order {
			l := []Lookup{generated, hand}[i]
			start := time.Now()
			for range block {
				if _, err := l.Get(ctx, 42); err != nil {
					b.Fatal(err)
				}
			}
			spent[i] += time.Since(start)
		}
	}
	calls := float64(b.N * block)
	b.ReportMetric(float64(spent[0].Nanoseconds())/calls, "generated-ns/call")
	b.ReportMetric(float64(spent[1].Nanoseconds())/calls, "hand-ns/call")
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "ratio")
}
