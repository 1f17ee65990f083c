package sentinelgrpc_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/proto"
)

// rawUnaryCall sends UnaryCall to the server at addr over cleartext HTTP/2
// with the grpc-timeout header given, as any client may, and never cancels
// it: the call ends when the server's timer for that deadline fires. The
// server then resets the stream, with or without a grpc-status before it.
func rawUnaryCall(t *testing.T, addr, timeout string) {
	t.Helper()
	msg, err := proto.Marshal(&testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: []byte("raw")}})
	require.NoError(t, err)
	var frame bytes.Buffer
	frame.WriteByte(0) // not compressed
	require.NoError(t, binary.Write(&frame, binary.BigEndian, uint32(len(msg))))
	frame.Write(msg)

	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
		"http://"+addr+unaryCall, &frame)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	req.Header.Set("Grpc-Timeout", timeout)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return // reset before any answer
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	// grpc-go's server closes the stream at the deadline on a timer of its
	// own, which cancels the call's context; when it fires before the
	// context's deadline timer, the call ends Canceled.
	code := resp.Trailer.Get("Grpc-Status") + resp.Header.Get("Grpc-Status")
	if code != "" {
		require.Contains(t, []string{strconv.Itoa(int(codes.DeadlineExceeded)), strconv.Itoa(int(codes.Canceled))}, code,
			"the call ends at its deadline")
	}
}

// rpcEnds is a server's stats.Handler that counts the RPCs the server is
// done with: grpc-go reports an RPC's End once its handler returned, or
// once it gave up on the RPC before reaching the handler (its deadline
// passed first).
type rpcEnds struct{ n atomic.Int64 }

func (h *rpcEnds) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (h *rpcEnds) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (h *rpcEnds) HandleConn(context.Context, stats.ConnStats)                       {}

func (h *rpcEnds) HandleRPC(_ context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.End); ok {
		h.n.Add(1)
	}
}

// wait waits until the server is done with n RPCs.
func (h *rpcEnds) wait(t *testing.T, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return h.n.Load() >= n }, 10*time.Second, time.Millisecond,
		"the server ends RPC %d", n)
}
