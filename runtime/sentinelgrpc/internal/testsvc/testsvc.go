// Package testsvc is the gRPC service sentinelgrpc's tests call: grpc-go's
// interop TestService, whose requests say which status to answer with, and
// whose handlers call a business method behind a generated wrapper, so the
// tests can see the wrapper's resource nest under the method's.
package testsvc

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"
)

//go:generate go tool sentinelgen

// The resources of the business methods the handlers call: one per
// handler, because a resource has one node per Sentinel context, linked
// under the first parent it was called from.
const (
	LookupResource  = "testsvc.lookup"  // UnaryCall's
	ProduceResource = "testsvc.produce" // StreamingOutputCall's
	EchoResource    = "testsvc.echo"    // FullDuplexCall's
	// Only the nesting tests call EmptyCall and HalfDuplexCall, so these
	// are first called, and linked, under the server's entry.
	NestResource       = "testsvc.nest"       // EmptyCall's
	NestStreamResource = "testsvc.nestStream" // HalfDuplexCall's
)

// Server implements TestService's UnaryCall, StreamingOutputCall,
// StreamingInputCall and FullDuplexCall.
type Server struct {
	testgrpc.UnimplementedTestServiceServer
	// Block, when set, holds handlers until it is closed (or their
	// context ends), so tests can keep calls in flight.
	Block chan struct{}
}

// lookup is the business method behind the handlers: it echoes key.
//
//sentinel:resource name=testsvc.lookup
func (s *Server) lookup(ctx context.Context, key string) (string, error) {
	if s.Block != nil {
		select {
		case <-s.Block:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return key, nil
}

// produce makes StreamingOutputCall's messages.
//
//sentinel:resource name=testsvc.produce
func (s *Server) produce(ctx context.Context, key string) (string, error) {
	return s.lookup(ctx, key)
}

// echo answers FullDuplexCall's messages.
//
//sentinel:resource name=testsvc.echo
func (s *Server) echo(ctx context.Context, key string) (string, error) {
	return s.lookup(ctx, key)
}

// nest is EmptyCall's business method.
//
//sentinel:resource name=testsvc.nest
func (s *Server) nest(ctx context.Context) error { return nil }

// nestStream is HalfDuplexCall's business method.
//
//sentinel:resource name=testsvc.nestStream
func (s *Server) nestStream(ctx context.Context) error { return nil }

// answer is the status a request asks for, nil for OK.
func answer(st *testgrpc.EchoStatus) error {
	if st == nil || st.GetCode() == 0 {
		return nil
	}
	return status.Error(codes.Code(st.GetCode()), st.GetMessage())
}

// UnaryCall echoes the payload through lookup, then answers with the
// requested status.
func (s *Server) UnaryCall(ctx context.Context, req *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	body, err := s.Lookup(ctx, string(req.GetPayload().GetBody()))
	if err != nil {
		return nil, err
	}
	if err := answer(req.GetResponseStatus()); err != nil {
		return nil, err
	}
	return &testgrpc.SimpleResponse{Payload: &testgrpc.Payload{Body: []byte(body)}}, nil
}

// StreamingOutputCall sends one message per response parameter, each
// through produce, then ends with the requested status.
func (s *Server) StreamingOutputCall(req *testgrpc.StreamingOutputCallRequest, stream testgrpc.TestService_StreamingOutputCallServer) error {
	for range req.GetResponseParameters() {
		body, err := s.Produce(stream.Context(), string(req.GetPayload().GetBody()))
		if err != nil {
			return err
		}
		if err := stream.Send(&testgrpc.StreamingOutputCallResponse{Payload: &testgrpc.Payload{Body: []byte(body)}}); err != nil {
			return err
		}
	}
	return answer(req.GetResponseStatus())
}

// EmptyCall calls nest.
func (s *Server) EmptyCall(ctx context.Context, _ *testgrpc.Empty) (*testgrpc.Empty, error) {
	if err := s.Nest(ctx); err != nil {
		return nil, err
	}
	return &testgrpc.Empty{}, nil
}

// HalfDuplexCall reads until the client closes its side, calls nestStream,
// and sends one empty message.
func (s *Server) HalfDuplexCall(stream testgrpc.TestService_HalfDuplexCallServer) error {
	for {
		_, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if err := s.NestStream(stream.Context()); err != nil {
		return err
	}
	return stream.Send(&testgrpc.StreamingOutputCallResponse{})
}

// StreamingInputCall sums the payload sizes it receives until the client
// closes its side.
func (s *Server) StreamingInputCall(stream testgrpc.TestService_StreamingInputCallServer) error {
	total := 0
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.SendAndClose(&testgrpc.StreamingInputCallResponse{AggregatedPayloadSize: int32(total)})
		}
		if err != nil {
			return err
		}
		total += len(req.GetPayload().GetBody())
	}
}

// FullDuplexCall echoes each message through echo, or ends with the
// status a message asks for, until the client closes its side.
func (s *Server) FullDuplexCall(stream testgrpc.TestService_FullDuplexCallServer) error {
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := answer(req.GetResponseStatus()); err != nil {
			return err
		}
		body, err := s.Echo(stream.Context(), string(req.GetPayload().GetBody()))
		if err != nil {
			return err
		}
		if err := stream.Send(&testgrpc.StreamingOutputCallResponse{Payload: &testgrpc.Payload{Body: []byte(body)}}); err != nil {
			return err
		}
	}
}
