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
