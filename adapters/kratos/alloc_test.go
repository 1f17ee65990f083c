package sentinelkratos_test

import (
	"context"
	"testing"

	"github.com/go-kratos/kratos/v2/transport"
	"github.com/stretchr/testify/assert"

	sentinelkratos "github.com/sentinelgen/sentinelgen/adapters/kratos"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// An admitted call costs the adapter one allocation, the entry (with the
// Sentinel context of an origin in it); a refused one costs no more.
func TestAdmittedAndRefusedCallsAllocateOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	clocktest.Install(t)
	handler := func(ctx context.Context, req any) (any, error) { return req, nil }
	origin := func(context.Context, transport.Transporter) string { return "billing" }
	ctx := transport.NewServerContext(context.Background(), benchTransport{headerCarrier{}})
	for _, tc := range []struct {
		name string
		opts []sentinelkratos.Option
	}{
		{"without origin", nil},
		{"with origin", []sentinelkratos.Option{sentinelkratos.WithOriginParser(origin)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := sentinelkratos.Server(tc.opts...)(handler)
			call := func() { _, _ = h(ctx, "req") }
			call()
			admitted := testing.AllocsPerRun(100, call)
			assert.Equal(t, 1.0, admitted, "admitted")

			loadFlow(t, benchTransport{}.Operation(), 0)
			call()
			refused := testing.AllocsPerRun(100, call)
			assert.Equal(t, 1.0, refused, "refused")
		})
	}
}

// The client middleware, too, costs an admitted call one allocation, the
// entry, and a refused one no more.
func TestClientCallsAllocateOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	clocktest.Install(t)
	h := sentinelkratos.Client()(func(ctx context.Context, req any) (any, error) { return req, nil })
	ctx := transport.NewClientContext(context.Background(), benchTransport{headerCarrier{}})
	call := func() { _, _ = h(ctx, "req") }
	call()
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, call), "admitted")

	loadFlow(t, benchTransport{}.Operation(), 0)
	_, err := h(ctx, "req")
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, call), "refused")
}
