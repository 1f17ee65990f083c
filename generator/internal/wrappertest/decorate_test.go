package wrappertest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// decorated returns a protected FakePayments, with Handled cleared.
func decorated(t *testing.T) (Payments, *FakePayments) {
	t.Helper()
	Handled.Reset()
	t.Cleanup(Handled.Reset)
	fake := &FakePayments{}
	return ProtectPayments(fake), fake
}

func TestDecoratedMethodsAreDeclaredAtInit(t *testing.T) {
	for _, name := range []string{"decorated.Charge", "decorated.Refund", "decorated.Ping", "decorated.Notify"} {
		r := runtime.LookupResource(name)
		require.NotNil(t, r, name)
		assert.Equal(t, []string{"i"}, r.Spec().Params, name)
	}
	assert.Nil(t, runtime.LookupResource("decorated.Version"), "exclude=: no resource")
}

func TestDecoratedCallReachesNextWithTheEntrysContext(t *testing.T) {
	setup(t)
	p, fake := decorated(t)
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "caller's")
	got, err := p.Charge(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, "Hello for 1", got)
	require.Len(t, fake.ctxs, 1)
	assert.NotSame(t, ctx, fake.ctxs[0], "next gets the entry's context, not the caller's")
	assert.Equal(t, "caller's", fake.ctxs[0].Value(key{}), "derived from the caller's")
	assert.Equal(t, stats{pass: 1}, statsOf(t, "decorated.Charge"))
	assert.Empty(t, Handled.Calls)
}

func TestDecoratedBlockedCallsReachTheHandlers(t *testing.T) {
	setup(t, "decorated.Charge", "decorated.Refund", "decorated.Ping", "decorated.Notify")
	p, fake := decorated(t)
	ctx := context.Background()

	got, err := p.Charge(ctx, 7)
	require.NoError(t, err)
	assert.Equal(t, "fallback", got, "no blockHandler: the fallback's same method")
	require.NoError(t, p.Refund(ctx, 8), "the method's own blockHandler")
	assert.False(t, p.Ping(ctx, 9), "no error result: the fallback answers")
	p.Notify(ctx, 10)

	assert.Empty(t, fake.ctxs, "next is never called when blocked")
	assert.Equal(t, []string{"Charge 7", "Refund 8", "Ping 9", "Notify 10"}, Handled.Calls, "same method, same arguments")
	require.Len(t, Handled.Causes, 1)
	var b *runtime.BlockError
	require.ErrorAs(t, Handled.Causes[0], &b, "the block handler is given the BlockError")
	assert.Equal(t, "decorated.Refund", b.Resource())
	assert.Equal(t, stats{block: 1}, statsOf(t, "decorated.Charge"))
}

func TestDecoratedBusinessErrorsAreTracedAndSentToTheFallback(t *testing.T) {
	setup(t)
	p, _ := decorated(t)
	ctx := context.Background()

	got, err := p.Charge(ctx, TracedInput)
	require.NoError(t, err)
	assert.Equal(t, "fallback", got)
	assert.Equal(t, stats{pass: 1, exception: 1}, statsOf(t, "decorated.Charge"))

	for _, i := range []int{IgnoredInput, IgnoredType} {
		_, err := p.Charge(ctx, i)
		require.Error(t, err, "ignore=: returned as it is")
	}
	assert.Equal(t, 1.0, statsOf(t, "decorated.Charge").exception, "ignored errors are not traced")
	assert.Equal(t, []string{"Charge 5763"}, Handled.Calls, "ignored errors do not reach the fallback")
}

func TestDecoratedPanicExitsTheEntryAndGoesOn(t *testing.T) {
	setup(t)
	p, _ := decorated(t)
	assert.PanicsWithValue(t, "boom", func() { _, _ = p.Charge(context.Background(), PanicInput) })
	assert.PanicsWithValue(t, "boom", func() { p.Notify(context.Background(), PanicInput) })
	assert.Equal(t, stats{pass: 1, exception: 1}, statsOf(t, "decorated.Charge"), "recorded, and threads back to 0")
	assert.Equal(t, stats{pass: 1, exception: 1}, statsOf(t, "decorated.Notify"))
}

func TestDecoratedExcludedMethodPassesThrough(t *testing.T) {
	setup(t)
	p, _ := decorated(t)
	assert.Equal(t, "fake", p.Version())
}

func TestDecoratedValueWithoutHandlerReturnsTheBlockError(t *testing.T) {
	setup(t, "apiDecoratedLookup")
	n, err := ProtectLookup(lookupFunc(func(context.Context, int64) (int64, error) { panic("not called") })).Get(context.Background(), 3)
	assert.Zero(t, n, "zero values")
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b, "and the BlockError as the error result")
	assert.Equal(t, "apiDecoratedLookup", b.Resource())
}

// TestDecoratedValueIsSafeForConcurrentUse calls one decorated value from
// many goroutines on every path (run with -race): each entry exits once,
// so no thread is left counted.
func TestDecoratedValueIsSafeForConcurrentUse(t *testing.T) {
	setup(t, "decorated.Refund")
	p, _ := decorated(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				in := []int{1, TracedInput, IgnoredInput, IgnoredType}[(g+i)%4]
				_, _ = p.Charge(ctx, in)
				_ = p.Refund(ctx, in)
				_ = p.Ping(ctx, in)
				p.Notify(ctx, in)
				_ = p.Version()
			}
		})
	}
	wg.Wait()
	for _, r := range []string{"decorated.Charge", "decorated.Refund", "decorated.Ping", "decorated.Notify"} {
		assert.Zero(t, statsOf(t, r).threads, r)
	}
	assert.Equal(t, 400.0, statsOf(t, "decorated.Refund").block)
}

type lookupFunc func(context.Context, int64) (int64, error)

func (f lookupFunc) Get(ctx context.Context, id int64) (int64, error) { return f(ctx, id) }

func TestDecoratedCallIsTheParentOfNestedCalls(t *testing.T) {
	setup(t, "apiBaz")
	ctx := runtime.EnterContext(context.Background(), "wrappertest-decorated-nesting", "")
	nested := lookupFunc(func(ctx context.Context, id int64) (int64, error) {
		_, err := (&Foo{}).Baz(ctx, 1)
		return id, err
	})
	_, err := ProtectLookup(nested).Get(ctx, 1)
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b, "the nested call was made, and blocked")
	assert.True(t, hasChild(runtime.Tree(), "apiDecoratedLookup", "apiBaz"), "apiBaz is under the decorated method in the call tree")
}

// nestedPayments' Charge makes a nested protected call, which is refused.
type nestedPayments struct{ FakePayments }

func (p *nestedPayments) Charge(ctx context.Context, i int) (string, error) {
	return (&Foo{}).Baz(ctx, i)
}

func TestDecoratedNestedBlockErrorGoesToTheHandlers(t *testing.T) {
	setup(t, "apiBaz")
	Handled.Reset()
	t.Cleanup(Handled.Reset)
	got, err := ProtectPayments(&nestedPayments{}).Charge(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, "fallback", got, "as Java's aspect handles a BlockException thrown inside")
	assert.Equal(t, []string{"Charge 1"}, Handled.Calls)
	assert.Equal(t, stats{pass: 1}, statsOf(t, "decorated.Charge"), "not traced as an exception")
}

func TestDecoratingNilPanicsAtOnce(t *testing.T) {
	assert.PanicsWithValue(t, "ProtectPayments: next is nil", func() { ProtectPayments(nil) },
		"a nil next is the constructor's caller's mistake, said there rather than at the first call")
}
