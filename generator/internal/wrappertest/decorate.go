package wrappertest

import (
	"context"
	"strconv"
	"sync"
)

// Payments stands for a client the package does not own: it is protected
// by decoration, method by method.
//
//sentinel:decorate name=decorated.{method} fallback=paymentsFallback ignore=ErrIgnored,*IgnoredError exclude=Version
type Payments interface {
	Charge(ctx context.Context, i int) (string, error)
	//sentinel:resource blockHandler=refundBlocked
	Refund(ctx context.Context, i int) error
	// Ping has no error result: the fallback answers a block.
	Ping(ctx context.Context, i int) bool
	// Notify has no results.
	Notify(ctx context.Context, i int)
	// Version passes through unprotected.
	Version() string
}

// Lookup is the benchmark's decorated interface: no handler, and an
// implementation that costs nothing.
//
//sentinel:decorate name=apiDecoratedLookup
type Lookup interface {
	Get(ctx context.Context, id int64) (int64, error)
}

// FakePayments answers as behave does, and records the contexts it is
// given.
type FakePayments struct {
	mu   sync.Mutex
	ctxs []context.Context
}

func (p *FakePayments) seen(ctx context.Context) {
	p.mu.Lock()
	p.ctxs = append(p.ctxs, ctx)
	p.mu.Unlock()
}

func (p *FakePayments) Charge(ctx context.Context, i int) (string, error) {
	p.seen(ctx)
	return behave(i)
}

func (p *FakePayments) Refund(ctx context.Context, i int) error {
	p.seen(ctx)
	_, err := behave(i)
	return err
}

func (p *FakePayments) Ping(ctx context.Context, i int) bool {
	p.seen(ctx)
	_, err := behave(i)
	return err == nil
}

func (p *FakePayments) Notify(ctx context.Context, i int) {
	p.seen(ctx)
	_, _ = behave(i)
}

func (p *FakePayments) Version() string { return "fake" }

// Handled records what the handlers of Payments were given.
var Handled handled

type handled struct {
	mu     sync.Mutex
	Calls  []string // "Charge 7": method and argument
	Causes []error  // what refundBlocked was given
}

func (h *handled) add(call string) {
	h.mu.Lock()
	h.Calls = append(h.Calls, call)
	h.mu.Unlock()
}

// Reset forgets what was recorded.
func (h *handled) Reset() {
	h.mu.Lock()
	h.Calls, h.Causes = nil, nil
	h.mu.Unlock()
}

// paymentsFallback answers for Payments when a call is refused or fails.
var paymentsFallback Payments = fallbackPayments{}

type fallbackPayments struct{}

func (fallbackPayments) Charge(ctx context.Context, i int) (string, error) {
	Handled.add("Charge " + strconv.Itoa(i))
	return "fallback", nil
}

func (fallbackPayments) Refund(ctx context.Context, i int) error {
	Handled.add("Refund " + strconv.Itoa(i))
	return nil
}

func (fallbackPayments) Ping(ctx context.Context, i int) bool {
	Handled.add("Ping " + strconv.Itoa(i))
	return false
}

func (fallbackPayments) Notify(ctx context.Context, i int) { Handled.add("Notify " + strconv.Itoa(i)) }

func (fallbackPayments) Version() string { return "fallback" }

// refundBlocked is Refund's block handler: given the cause, it returns the
// Payments that answers.
func refundBlocked(cause error) Payments {
	Handled.mu.Lock()
	Handled.Causes = append(Handled.Causes, cause)
	Handled.mu.Unlock()
	return paymentsFallback
}
