package wrappertest

import (
	"context"
	"testing"

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
