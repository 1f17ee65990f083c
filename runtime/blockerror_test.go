package runtime_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
)

type namedRule string

func (r namedRule) ResourceName() string { return string(r) }

// A shared BlockError is returned by every refusal for one reason, so no
// user of one can change what the others see.
func TestSharedBlockErrorIsReadOnly(t *testing.T) {
	rule := namedRule("getOrder")
	shared := runtime.NewSharedBlockError(runtime.BlockFlow, "getOrder", rule, "default")
	want := `sentinel: "getOrder" blocked by flow rule`

	tests := []struct {
		name string
		use  func(b *runtime.BlockError) *runtime.BlockError
		text string
	}{
		{"WithMessage returns a copy with the detail", func(b *runtime.BlockError) *runtime.BlockError {
			return b.WithMessage("qps 20")
		}, want + ": qps 20"},
		{"a copy's WithMessage changes the copy only", func(b *runtime.BlockError) *runtime.BlockError {
			c := b.WithMessage("one")
			return c.WithMessage("two")
		}, want + ": two"},
		{"errors.As through a wrap finds it as it is", func(b *runtime.BlockError) *runtime.BlockError {
			var got *runtime.BlockError
			require.True(t, errors.As(fmt.Errorf("wrapped: %w", b), &got))
			return got
		}, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.use(shared)
			assert.Equal(t, tt.text, got.Error())
			assert.Equal(t, want, shared.Error(), "the shared error is unchanged")
			assert.Equal(t, runtime.BlockFlow, got.BlockType())
			assert.Equal(t, "getOrder", got.Resource())
			assert.Equal(t, rule, got.Rule())
			assert.Equal(t, "default", got.TriggeredValue())
			assert.ErrorIs(t, got, runtime.ErrBlocked)
		})
	}
}

// Goroutines that hold the same shared BlockError read it and derive
// their own from it at once (run with -race).
func TestSharedBlockErrorIsSafeAcrossGoroutines(t *testing.T) {
	shared := runtime.NewSharedBlockError(runtime.BlockDegrade, "pay", nil, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				mine := shared.WithMessage(fmt.Sprint("caller ", i))
				assert.Equal(t, fmt.Sprintf(`sentinel: "pay" blocked by degrade rule: caller %d`, i), mine.Error())
				assert.Equal(t, `sentinel: "pay" blocked by degrade rule`, shared.Error())
			}
		})
	}
	wg.Wait()
}

// Error of a shared BlockError is built once, when it is made.
func TestSharedBlockErrorTextAllocatesNothing(t *testing.T) {
	shared := runtime.NewSharedBlockError(runtime.BlockFlow, "getOrder", nil, nil)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = shared.Error() }))
}
