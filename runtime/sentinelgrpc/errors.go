package sentinelgrpc

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// ErrorDomain and ErrorReason identify a Sentinel refusal in the
// google.rpc.ErrorInfo detail of its status, whose metadata carries the
// block type ("blockType") and the resource ("resource"). A client
// interceptor recognises a server's refusal by them.
const (
	ErrorDomain = "sentinel"
	ErrorReason = "BLOCKED"
)

// BlockedError is the error of a call Sentinel refused: a gRPC status
// error with code ResourceExhausted (status.Code and status.FromError see
// it) that also carries the *runtime.BlockError, so that
// errors.Is(err, runtime.ErrBlocked) and errors.As(err, &blockErr) hold.
// The client interceptors return it for the calls they refuse, and for
// calls a Sentinel-protected server refused (Remote); the server
// interceptors return it to grpc-go, which sends the status to the client.
type BlockedError struct {
	Block *runtime.BlockError
	// Remote is set when the server refused the call: Block then has the
	// block type and resource the server sent, and no rule.
	Remote bool

	st *status.Status // what the server sent, for a remote refusal
}

// BlockStatus returns the error a refused call gets by default: a
// *BlockedError for b. For a shared BlockError (every refusal by one rule
// on one method returns the same, see runtime.BlockError.Shared) it is
// built once, status and details included, and returned again for the
// rule's later refusals, so a refusal allocates no error: treat it as
// read-only, as any error value.
func BlockStatus(b *runtime.BlockError) error {
	if b == nil || !b.Shared() {
		return &BlockedError{Block: b}
	}
	return blockedErrors.get(b)
}

// Error reads as a status error: "rpc error: code = ResourceExhausted desc
// = sentinel: "/pkg.Service/Method" blocked by flow rule".
func (e *BlockedError) Error() string {
	return fmt.Sprintf("rpc error: code = %s desc = %s", codes.ResourceExhausted, e.GRPCStatus().Message())
}

// GRPCStatus is the status grpc-go sends and status.FromError returns:
// ResourceExhausted, with the block error's text, which names the resource
// and the block type ("flow", "degrade", "system", "authority",
// "paramflow"), followed by Java's exception for it ("(FlowException)"),
// and an ErrorInfo detail (ErrorDomain, ErrorReason).
func (e *BlockedError) GRPCStatus() *status.Status {
	if e.st != nil {
		return e.st
	}
	return localStatus(e.Block)
}

// localStatus is GRPCStatus of a refusal by this process's rules.
func localStatus(b *runtime.BlockError) *status.Status {
	if b == nil {
		return status.New(codes.ResourceExhausted, runtime.ErrBlocked.Error())
	}
	st := status.New(codes.ResourceExhausted, b.Error()+" ("+javaException(b.BlockType())+")")
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Domain: ErrorDomain, Reason: ErrorReason,
		Metadata: map[string]string{"blockType": b.BlockType().String(), "resource": b.Resource()}}); err == nil {
		st = d
	}
	return st
}

// Unwrap returns the *runtime.BlockError.
func (e *BlockedError) Unwrap() error {
	if e.Block == nil {
		return nil
	}
	return e.Block
}

// Is reports whether target is runtime.ErrBlocked, also for a BlockedError
// without its Block.
func (e *BlockedError) Is(target error) bool { return target == runtime.ErrBlocked }

// remoteBlocked returns err as a remote *BlockedError when it is the
// status of a Sentinel refusal by the server, and err unchanged otherwise.
func remoteBlocked(err error) error {
	// io.EOF ends every stream, and grpc-go's own status errors carry
	// their code: neither builds a status here (status.Code would, for
	// io.EOF).
	if err == nil || err == io.EOF {
		return err
	}
	if se, ok := err.(interface{ GRPCStatus() *status.Status }); ok && se.GRPCStatus().Code() != codes.ResourceExhausted {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	if _, local := err.(*BlockedError); local {
		return err
	}
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetDomain() != ErrorDomain || info.GetReason() != ErrorReason {
			continue
		}
		md := info.GetMetadata()
		b := runtime.NewBlockError(parseBlockType(md["blockType"]), md["resource"], nil, nil)
		return &BlockedError{Block: b, Remote: true, st: st}
	}
	return err
}

// javaException names the BlockException subclass Java throws for t.
func javaException(t runtime.BlockType) string {
	switch t {
	case runtime.BlockFlow:
		return "FlowException"
	case runtime.BlockDegrade:
		return "DegradeException"
	case runtime.BlockSystem:
		return "SystemBlockException"
	case runtime.BlockAuthority:
		return "AuthorityException"
	case runtime.BlockParamFlow:
		return "ParamFlowException"
	}
	return "BlockException"
}

// parseBlockType maps a BlockType's name back to it; BlockCustom for a
// name this runtime does not know.
func parseBlockType(name string) runtime.BlockType {
	for t := runtime.BlockFlow; t <= runtime.BlockCustom; t++ {
		if t.String() == name {
			return t
		}
	}
	return runtime.BlockCustom
}

// ServerError is the default WithErrorCode predicate: the codes that say
// the server failed to do its job, as 5xx statuses do in HTTP. They are
// Unknown (also a handler's plain, non-status error), DeadlineExceeded
// (a deadline of the server's own passed: one its caller chose is the
// caller's, see the package documentation), Internal, Unavailable and
// DataLoss.
// Codes that describe the request or the caller (InvalidArgument,
// NotFound, AlreadyExists, PermissionDenied, Unauthenticated,
// FailedPrecondition, OutOfRange, Aborted, Unimplemented), Canceled, and
// ResourceExhausted (a refusal, which a breaker should not turn into more
// refusals) are not errors.
func ServerError(code codes.Code) bool {
	switch code {
	case codes.Unknown, codes.DeadlineExceeded, codes.Internal, codes.Unavailable, codes.DataLoss:
		return true
	}
	return false
}

// traced returns the error to record on the entry for a call that ended
// with err in ctx, nil for none: no error, a code the predicate does not
// count, a refusal, or a call whose context ended (the caller-abort rule).
func (c *commonConfig) traced(ctx context.Context, err error) error {
	if err == nil || c.errorCode == nil {
		return nil
	}
	if contextEnded(ctx) {
		return nil // the caller hung up or its deadline passed: not the method's failure
	}
	if errors.Is(err, runtime.ErrBlocked) {
		return nil
	}
	if !c.errorCode(status.Code(err)) {
		return nil
	}
	return err
}

// PanicError is the error recorded on an entry whose handler panicked. The
// panic itself goes on after the entry exits.
type PanicError struct {
	Value any // what the handler panicked with
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("sentinelgrpc: handler panicked: %v", e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
