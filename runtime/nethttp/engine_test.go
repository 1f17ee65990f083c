package nethttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// A router that runs its own handler chain calls Enter and Exit around it.
func TestEngineAdmitsRefusesAndRecords(t *testing.T) {
	clk := clocktest.Install(t)
	rec := record(t).blocking("/engine/blocked")
	engine := nethttp.NewEngine(nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user")))

	// Admitted: the handlers' request carries the entry, and a 5xx is the
	// route's error.
	r := httptest.NewRequest(http.MethodGet, "/engine/order/1", nil)
	r.Header.Set("S-user", "frontend")
	req, e, ok := engine.Enter(httptest.NewRecorder(), r, "/engine/order/:id")
	require.True(t, ok)
	require.NotNil(t, e)
	name, origin := runtime.ContextName(req.Context())
	assert.Equal(t, nethttp.ContextName, name)
	assert.Equal(t, "frontend", origin)
	assert.Equal(t, r.URL, req.URL, "a copy of the request")
	engine.Exit(req, e, http.StatusBadGateway, nil)
	var se *nethttp.StatusError
	require.ErrorAs(t, rec.lastExit().Err, &se)
	assert.Equal(t, http.StatusBadGateway, se.Code)

	// A panic is recorded; one after the client hung up is not.
	req, e, _ = engine.Enter(httptest.NewRecorder(), r, "/engine/order/:id")
	engine.Exit(req, e, 0, "boom")
	var pe *nethttp.PanicError
	require.ErrorAs(t, rec.lastExit().Err, &pe)
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	req, e, _ = engine.Enter(httptest.NewRecorder(), r.WithContext(gone), "/engine/order/:id")
	engine.Exit(req, e, http.StatusInternalServerError, nil)
	assert.NoError(t, rec.lastExit().Err, "the client hung up: not the route's error")
	cl := cluster(t, "/engine/order/:id")
	assert.Equal(t, 2.0, cl.ExceptionQPS(clk.Millis()))
	assert.Zero(t, cl.Threads())

	// Refused: answered on w, and the handlers must not run.
	w := httptest.NewRecorder()
	_, e, ok = engine.Enter(w, httptest.NewRequest(http.MethodGet, "/engine/blocked", nil), "/engine/blocked")
	assert.False(t, ok)
	assert.Nil(t, e)
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))

	// No route: not protected, the request itself, nothing to exit.
	plain := httptest.NewRequest(http.MethodGet, "/engine/nowhere", nil)
	req, e, ok = engine.Enter(httptest.NewRecorder(), plain, "")
	assert.True(t, ok)
	assert.Nil(t, e)
	assert.Same(t, plain, req)
	engine.Exit(req, e, http.StatusInternalServerError, nil) // does nothing
	assert.Nil(t, runtime.LookupResource("/engine/nowhere"))
}
