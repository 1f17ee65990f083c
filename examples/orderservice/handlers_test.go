package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests drive the block handler and the fallback through the
// generated wrappers, as callers do, with the refusals forced by
// sentineltest instead of rules and traffic.

// newTestService returns a service whose payments go to a healthy stand-in
// provider on a loopback port.
func newTestService(t *testing.T) (*OrderService, *FlakyProvider) {
	t.Helper()
	p, err := StartFlakyProvider()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	return NewOrderService(NewPaymentClient(p.URL(), transport), 0), p
}

func TestGetOrderServesTheStoredOrderWhenAdmitted(t *testing.T) {
	sentineltest.Reset(t)
	svc, _ := newTestService(t)
	o, err := svc.GetOrder(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, &Order{ID: 1, User: "alice", Item: "book-1", Amount: 10, Status: "new"}, o)
}

// The test docs/rules.md shows.
func TestGetOrderServesADegradedOrderWhenBlocked(t *testing.T) {
	sentineltest.Reset(t)                                // no rules of any kind, fresh statistics
	sentineltest.Block(t, "getOrder", runtime.BlockFlow) // every call refused until the test ends
	svc, _ := newTestService(t)                          // with a stand-in payment provider
	o, err := svc.GetOrder(context.Background(), 2)      // the wrapper calls getOrderBlocked
	require.NoError(t, err)
	assert.True(t, o.Degraded)
}

func TestGetOrderBlockHandlerServesADegradedOrderWhateverBlocks(t *testing.T) {
	sentineltest.Reset(t)
	svc, _ := newTestService(t)
	for _, bt := range []runtime.BlockType{
		runtime.BlockFlow, runtime.BlockDegrade, runtime.BlockSystem,
		runtime.BlockAuthority, runtime.BlockParamFlow,
	} {
		t.Run(bt.String(), func(t *testing.T) {
			sentineltest.Block(t, "getOrder", bt)
			o, err := svc.GetOrder(context.Background(), 2)
			require.NoError(t, err, "the handler answers instead of failing")
			assert.Equal(t, &Order{ID: 2, Status: "unknown", Degraded: true}, o)
		})
	}
	o, err := svc.GetOrder(context.Background(), 2)
	require.NoError(t, err)
	assert.False(t, o.Degraded, "the blocks ended with their subtests")
}

func TestPayOrderFallbackQueuesThePaymentWhileTheBreakerIsOpen(t *testing.T) {
	sentineltest.Reset(t)
	svc, provider := newTestService(t)
	t.Run("breaker open", func(t *testing.T) {
		sentineltest.OpenBreaker(t, "payOrder")
		o, err := svc.PayOrder(context.Background(), 3)
		require.NoError(t, err)
		assert.Equal(t, &Order{ID: 3, Status: "payment-pending", Degraded: true}, o)
		assert.Zero(t, provider.Charges(), "an open breaker spares the provider")
	})

	o, err := svc.PayOrder(context.Background(), 3)
	require.NoError(t, err)
	assert.Equal(t, "paid", o.Status, "the breaker closed with the subtest")
	assert.EqualValues(t, 1, provider.Charges())
}

func TestPayOrderFallbackQueuesThePaymentWhenTheProviderFails(t *testing.T) {
	sentineltest.Reset(t)
	svc, provider := newTestService(t)
	provider.SetFailing(true)
	o, err := svc.PayOrder(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, &Order{ID: 1, Status: "payment-pending", Degraded: true}, o)
	assert.EqualValues(t, 1, provider.Charges())

	stored, err := svc.GetOrder(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, "new", stored.Status, "nothing was charged")
}

func TestPayOrderFallbackPassesNotFoundThrough(t *testing.T) {
	sentineltest.Reset(t)
	svc, provider := newTestService(t)
	_, err := svc.PayOrder(context.Background(), 404)
	require.ErrorIs(t, err, ErrNotFound)
	assert.Zero(t, provider.Charges())
}
