package sentinelgrpc_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
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
	code := resp.Trailer.Get("Grpc-Status") + resp.Header.Get("Grpc-Status")
	if code != "" {
		require.Equal(t, strconv.Itoa(int(codes.DeadlineExceeded)), code)
	}
}
