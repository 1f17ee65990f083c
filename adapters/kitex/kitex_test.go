package sentinelkitex_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/kitex/client"
	"github.com/cloudwego/kitex/client/genericclient"
	"github.com/cloudwego/kitex/pkg/generic"
	"github.com/cloudwego/kitex/pkg/kerrors"
	"github.com/cloudwego/kitex/pkg/klog"
	"github.com/cloudwego/kitex/pkg/rpcinfo"
	"github.com/cloudwego/kitex/pkg/transmeta"
	"github.com/cloudwego/kitex/server"
	"github.com/cloudwego/kitex/server/genericserver"
	"github.com/cloudwego/kitex/transport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelkitex "github.com/sentinelgen/sentinelgen/adapters/kitex"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/internal/webtest/orders"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The service the tests serve, through Kitex's JSON generic call over
// Thrift: a real server and client, without generated code.
const (
	idl = `namespace go orders
struct Request { 1: string id }
struct Response { 1: string order }
service OrderService {
	Response GetOrder(1: Request req)
}`
	getOrder = "OrderService/GetOrder"
)

func TestMain(m *testing.M) {
	klog.SetOutput(io.Discard)
	klog.SetLevel(klog.LevelFatal)
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

func jsonGeneric(t testing.TB) generic.Generic {
	t.Helper()
	p, err := generic.NewThriftContentProvider(idl, nil)
	require.NoError(t, err)
	g, err := generic.JSONThriftGeneric(p)
	require.NoError(t, err)
	return g
}

// calls counts the calls that reached the handler.
var calls atomic.Int64

// service answers GetOrder for id: "fail" is an error, "panic" panics,
// "biz" is a business status error, "hang" waits for the call's context
// to end, "nest" calls a generated wrapper with the handler's context.
type service struct{}

func (*service) GenericCall(ctx context.Context, method string, request any) (any, error) {
	calls.Add(1)
	var req struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(request.(string)), &req); err != nil {
		return nil, err
	}
	id := req.ID
	order := "order " + id
	switch id {
	case "fail":
		return nil, errors.New("the database is down")
	case "panic":
		panic("kitex test: handler panicked")
	case "biz":
		return nil, kerrors.NewBizStatusError(404, "no such order")
	case "hang":
		<-ctx.Done()
		return nil, ctx.Err()
	case "nest":
		var err error
		if order, err = orders.Lookup(ctx, id); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(map[string]string{"order": order})
	return string(b), err
}

// serve runs a Kitex server on 127.0.0.1 with opts (the adapter's
// middleware among them) until t ends.
func serve(t *testing.T, opts ...server.Option) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	opts = append([]server.Option{server.WithListener(l), server.WithExitWaitTime(time.Millisecond),
		server.WithMetaHandler(transmeta.ServerTTHeaderHandler)}, opts...)
	svr := genericserver.NewServer(new(service), jsonGeneric(t), opts...)
	go func() { _ = svr.Run() }()
	t.Cleanup(func() { _ = svr.Stop() })
	return l.Addr().String()
}

func newClient(t *testing.T, addr string, opts ...client.Option) genericclient.Client {
	t.Helper()
	opts = append([]client.Option{client.WithHostPorts(addr), client.WithTransportProtocol(transport.TTHeader),
		client.WithMetaHandler(transmeta.ClientTTHeaderHandler), client.WithRPCTimeout(10 * time.Second)}, opts...)
	c, err := genericclient.NewClient("OrderService", jsonGeneric(t), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func call(ctx context.Context, c genericclient.Client, id string) (string, error) {
	resp, err := c.GenericCall(ctx, "GetOrder", `{"id":"`+id+`"}`)
	if err != nil {
		return "", err
	}
	return resp.(string), nil
}

func protected(t *testing.T, opts ...sentinelkitex.Option) genericclient.Client {
	t.Helper()
	return newClient(t, serve(t, server.WithMiddleware(sentinelkitex.ServerMiddleware(opts...))))
}

func loadFlow(t *testing.T, rule flow.Rule) {
	t.Helper()
	require.NoError(t, flow.LoadRules([]flow.Rule{rule}))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })
}

func loadBreaker(t *testing.T, resource string) {
	t.Helper()
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: resource, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	t.Cleanup(func() { require.NoError(t, degrade.LoadRules(nil)) })
}

func TestTheServerNamesTheResourceServiceSlashMethod(t *testing.T) {
	clocktest.Install(t)
	c := protected(t)
	resp, err := call(t.Context(), c, "7")
	require.NoError(t, err)
	assert.JSONEq(t, `{"order":"order 7"}`, resp)
	res := runtime.LookupResource(getOrder)
	require.NotNil(t, res)
	assert.Equal(t, runtime.Inbound, res.Spec().Traffic)
}

func TestARefusalNeverReachesTheHandler(t *testing.T) {
	clocktest.Install(t)
	c := protected(t)
	loadFlow(t, flow.Rule{Resource: getOrder, Grade: flow.GradeQPS, Count: 1})
	_, err := call(t.Context(), c, "1")
	require.NoError(t, err)
	before := calls.Load()
	_, err = call(t.Context(), c, "2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Blocked by Sentinel")
	assert.Equal(t, before, calls.Load(), "the handler was not reached")
}

func TestErrorsAndPanicsOpenTheBreakerButBusinessStatusesDoNot(t *testing.T) {
	for _, id := range []string{"fail", "panic"} {
		t.Run(id, func(t *testing.T) {
			clk := clocktest.Install(t)
			c := protected(t)
			loadBreaker(t, getOrder)
			for range 3 {
				_, err := call(t.Context(), c, id)
				require.Error(t, err)
			}
			assert.Equal(t, 3.0, runtime.LookupResource(getOrder).ClusterNode().ExceptionQPS(clk.Millis()))
			_, err := call(t.Context(), c, "1")
			assert.ErrorContains(t, err, "Blocked by Sentinel", "open")
		})
	}
	t.Run("biz", func(t *testing.T) {
		clk := clocktest.Install(t)
		c := protected(t)
		loadBreaker(t, getOrder)
		for range 3 {
			_, err := call(t.Context(), c, "biz")
			biz, ok := kerrors.FromBizStatusError(err)
			require.True(t, ok, "a business status: %v", err)
			assert.EqualValues(t, 404, biz.BizStatusCode())
		}
		assert.Zero(t, runtime.LookupResource(getOrder).ClusterNode().ExceptionQPS(clk.Millis()))
		_, err := call(t.Context(), c, "1")
		assert.NoError(t, err, "closed")
	})
}

func TestAClientRefusalNeverReachesTheServer(t *testing.T) {
	clocktest.Install(t)
	c := newClient(t, serve(t), client.WithMiddleware(sentinelkitex.ClientMiddleware()))
	loadFlow(t, flow.Rule{Resource: getOrder, Grade: flow.GradeQPS, Count: 0})
	before := calls.Load()
	_, err := call(t.Context(), c, "1")
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	var blocked *sentinelkitex.Error
	require.ErrorAs(t, err, &blocked)
	assert.Equal(t, runtime.BlockFlow, blocked.BlockType)
	assert.Equal(t, before, calls.Load(), "the server was not reached")
}

func TestTheClientsBreakerOpensOnFailedCallsButNotOnItsOwnDeadlines(t *testing.T) {
	clk := clocktest.Install(t)
	c := newClient(t, serve(t), client.WithMiddleware(sentinelkitex.ClientMiddleware()))
	loadBreaker(t, getOrder)
	for range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		_, err := call(ctx, c, "hang")
		cancel()
		require.Error(t, err)
	}
	res := runtime.LookupResource(getOrder)
	assert.Zero(t, res.ClusterNode().ExceptionQPS(clk.Millis()), "the caller's own deadline")
	for range 3 {
		_, err := call(t.Context(), c, "fail")
		require.Error(t, err)
	}
	assert.Equal(t, 3.0, res.ClusterNode().ExceptionQPS(clk.Millis()))
	_, err := call(t.Context(), c, "1")
	assert.ErrorIs(t, err, runtime.ErrBlocked, "open")
}

func TestTheOriginIsTheCallersServiceName(t *testing.T) {
	clocktest.Install(t)
	addr := serve(t, server.WithMiddleware(sentinelkitex.ServerMiddleware(sentinelkitex.WithOriginParser(sentinelkitex.OriginFromCaller))))
	billing := newClient(t, addr, client.WithClientBasicInfo(&rpcinfo.EndpointBasicInfo{ServiceName: "billing"}))
	shipping := newClient(t, addr, client.WithClientBasicInfo(&rpcinfo.EndpointBasicInfo{ServiceName: "shipping"}))
	loadFlow(t, flow.Rule{Resource: getOrder, LimitApp: "billing", Grade: flow.GradeQPS, Count: 0})
	_, err := call(t.Context(), billing, "1")
	assert.ErrorContains(t, err, "Blocked by Sentinel", "billing is limited")
	_, err = call(t.Context(), shipping, "1")
	assert.NoError(t, err, "shipping is not")
}

func TestAGeneratedWrapperNestsUnderTheCall(t *testing.T) {
	clocktest.Install(t)
	c := protected(t)
	_, err := call(t.Context(), c, "nest")
	require.NoError(t, err)
	webtest.AssertNestsUnder(t, getOrder, orders.LookupResource)
}
