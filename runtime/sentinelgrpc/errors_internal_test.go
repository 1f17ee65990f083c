package sentinelgrpc

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func TestEveryBlockTypeCrossesTheNetworkAndComesBack(t *testing.T) {
	for _, tt := range []struct {
		t    runtime.BlockType
		java string
	}{
		{runtime.BlockFlow, "FlowException"},
		{runtime.BlockDegrade, "DegradeException"},
		{runtime.BlockSystem, "SystemBlockException"},
		{runtime.BlockAuthority, "AuthorityException"},
		{runtime.BlockParamFlow, "ParamFlowException"},
		{runtime.BlockAdaptive, "BlockException"}, // no Java counterpart
		{runtime.BlockCustom, "BlockException"},
	} {
		t.Run(tt.t.String(), func(t *testing.T) {
			local := BlockStatus(runtime.NewBlockError(tt.t, "/a.B/C", nil, nil))
			st := status.Convert(local)
			assert.Equal(t, codes.ResourceExhausted, st.Code())
			assert.Contains(t, st.Message(), tt.t.String()+" rule")
			assert.Contains(t, st.Message(), "("+tt.java+")")

			// What a client receives is a plain status error rebuilt from the wire.
			wire := status.FromProto(st.Proto()).Err()
			got := remoteBlocked(wire)
			var blocked *BlockedError
			require.ErrorAs(t, got, &blocked)
			assert.True(t, blocked.Remote)
			assert.Equal(t, tt.t, blocked.Block.BlockType())
			assert.Equal(t, "/a.B/C", blocked.Block.Resource())
			assert.ErrorIs(t, got, runtime.ErrBlocked)
			assert.Equal(t, st.Message(), status.Convert(got).Message(), "the server's words")
		})
	}
}

func TestRemoteBlockedLeavesOtherErrorsAlone(t *testing.T) {
	plain := status.Error(codes.ResourceExhausted, "quota exceeded")
	for _, err := range []error{nil, io.EOF, errors.New("x"), status.Error(codes.Unavailable, "down"), plain} {
		assert.Equal(t, err, remoteBlocked(err))
	}
	assert.False(t, errors.Is(remoteBlocked(plain), runtime.ErrBlocked), "another service's quota is not a Sentinel block")
}
