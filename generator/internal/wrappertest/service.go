package wrappertest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Inputs that make the business methods fail, as Java's fixtures use 5758
// and 5763.
const (
	IgnoredInput = 5758 // returns ErrIgnored: neither traced nor sent to fallback
	TracedInput  = 5763 // returns a plain error: traced and sent to fallback
	IgnoredType  = 5764 // returns a wrapped *IgnoredError
	PanicInput   = 9999 // panics
)

var ErrIgnored = errors.New("ignored")

var errTraced = errors.New("traced")

// IgnoredError is an error type ignored by type (errors.As).
type IgnoredError struct{ Code int }

func (e *IgnoredError) Error() string { return "ignored " + strconv.Itoa(e.Code) }

// Foo is Java's FooService.
type Foo struct {
	LastBlock    *runtime.BlockError // what the last handler was given
	LastErr      error
	LastArgs     []any
	FallbackRuns int
}

func behave(i int) (string, error) {
	switch i {
	case IgnoredInput:
		return "", ErrIgnored
	case TracedInput:
		return "", errTraced
	case IgnoredType:
		return "", fmt.Errorf("wrapped: %w", &IgnoredError{Code: i})
	case PanicInput:
		panic("boom")
	}
	return "Hello for " + strconv.Itoa(i), nil
}

// foo has a block handler and no fallback.
//
//sentinel:resource name=apiFoo blockHandler=fooBlockHandler ignore=ErrIgnored,*IgnoredError
func (f *Foo) foo(ctx context.Context, i int) (string, error) { return behave(i) }

// fooWithFallback has both: blocks go to the block handler, errors to the
// fallback.
//
//sentinel:resource name=apiFooWithFallback blockHandler=fooBlockHandler fallback=fooFallback ignore=ErrIgnored
func (f *Foo) fooWithFallback(ctx context.Context, i int) (string, error) { return behave(i) }

func (f *Foo) fooBlockHandler(ctx context.Context, i int, b *runtime.BlockError) (string, error) {
	f.LastBlock = b
	return "Oops, " + strconv.Itoa(i), nil
}

func (f *Foo) fooFallback(ctx context.Context, i int) (string, error) {
	f.FallbackRuns++
	return "eee...", nil
}

// fallbackOnly has a fallback taking the error and no block handler:
// blocks reach the fallback, with the BlockError.
//
//sentinel:resource name=apiFallbackOnly fallback=fallbackWithErr
func (f *Foo) fallbackOnly(ctx context.Context, i int) (string, error) { return behave(i) }

func (f *Foo) fallbackWithErr(ctx context.Context, i int, err error) (string, error) {
	f.FallbackRuns++
	f.LastErr = err
	return "fallback: " + err.Error(), nil
}

// anotherFoo has only a default fallback, which takes the error.
//
//sentinel:resource name=apiDefault defaultFallback=globalDefault
func (f *Foo) anotherFoo(ctx context.Context, i int) (string, error) { return behave(i) }

func (f *Foo) globalDefault(err error) (string, error) {
	f.FallbackRuns++
	f.LastErr = err
	return "fallback", nil
}

// baz has no handler: a block is returned as the error.
//
//sentinel:resource name=apiBaz ignore=ErrIgnored
func (f *Foo) baz(ctx context.Context, i int) (string, error) { return behave(i) }

// fire has no results: it needs its block handler.
//
//sentinel:resource name=apiFire blockHandler=fireBlocked
func (f *Foo) fire(ctx context.Context, i int) { _, _ = behave(i) }

func (f *Foo) fireBlocked(ctx context.Context, i int, b *runtime.BlockError) { f.LastBlock = b }

// hot passes two of its parameters to hot-parameter rules.
//
//sentinel:resource name=apiHot args=id,tags
func hot(ctx context.Context, id int64, name string, tags ...string) error { return nil }

// nested calls baz with the context its wrapper gave it.
//
//sentinel:resource name=apiOuter
func (f *Foo) outer(ctx context.Context) (string, error) { return f.Baz(ctx, 1) }

// outerHandled's nested call is blocked: the BlockError it returns goes to
// outerBlocked, as Java's aspect handles a BlockException thrown inside.
//
//sentinel:resource name=apiOuterHandled blockHandler=outerBlocked
func (f *Foo) outerHandled(ctx context.Context) (string, error) { return f.Baz(ctx, 1) }

func (f *Foo) outerBlocked(ctx context.Context, b *runtime.BlockError) (string, error) {
	f.LastBlock = b
	return "outer handled", nil
}

// plain is the benchmark's subject: what it wraps costs nothing.
//
//sentinel:resource name=apiPlain
func plain(ctx context.Context, id int64) (int64, error) { return id, nil }

// Counter holds a lock, which go vet forbids copying from a variable: its
// wrapper returns it without a local.
type Counter struct {
	mu sync.Mutex
	N  int
}

// newCounter returns a Counter by value; TracedInput fails, PanicInput
// panics.
//
//sentinel:resource name=apiNewCounter
func newCounter(n int) (Counter, error) {
	switch n {
	case TracedInput:
		return Counter{}, errTraced
	case PanicInput:
		panic("boom")
	}
	return Counter{N: n}, nil
}
