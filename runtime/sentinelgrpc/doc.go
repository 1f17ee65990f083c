// Package sentinelgrpc protects gRPC servers and clients (grpc-go) with the
// sentinelgen runtime, as Java Sentinel's gRPC adapter does: four
// interceptors, each taking options.
//
// # Setup
//
// Every method a server serves is an inbound resource named after its full
// method name, "/pkg.Service/Method":
//
//	srv := grpc.NewServer(
//		grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor()),
//		grpc.ChainStreamInterceptor(sentinelgrpc.StreamServerInterceptor()),
//	)
//
// and every method a client calls an outbound one, named the same way:
//
//	conn, err := grpc.NewClient(target,
//		grpc.WithTransportCredentials(creds),
//		grpc.WithChainUnaryInterceptor(sentinelgrpc.UnaryClientInterceptor()),
//		grpc.WithChainStreamInterceptor(sentinelgrpc.StreamClientInterceptor()),
//	)
//
// Rules then name these resources:
//
//	[{"resource": "/orders.OrderService/GetOrder", "grade": 1, "count": 20}]
//
// A process that is both server and client of the same method (a proxy,
// or a test) counts both directions on the one resource, as in Java.
//
// A server's interceptors see only the methods it registered, so its
// resources are bounded by its services. A server with
// grpc.UnknownServiceHandler is the exception: its stream interceptor sees
// whatever method name a client sends, and each one would become a resource
// (past runtime.MaxResources, they are counted together on one overflow
// resource, and resources rules name keep their own). Keep such a
// server's unknown methods out of the interceptor's way, for example by
// chaining a stream interceptor before it that answers them.
//
// # Refused calls
//
// A call a rule refuses gets codes.ResourceExhausted, the code gRPC has for
// "out of quota", whose message names the resource and the block type
// (`sentinel: "/orders.OrderService/GetOrder" blocked by flow rule
// (FlowException)`).
// The error is a *BlockedError: status.Code and status.FromError see the
// status, and errors.Is(err, runtime.ErrBlocked) and errors.As(err,
// &blockErr) with a *runtime.BlockError hold. The status also carries a
// google.rpc.ErrorInfo detail (domain "sentinel", reason "BLOCKED", the
// block type and the resource in its metadata), so a client interceptor
// turns a server's refusal into a *BlockedError as well, with Remote set:
// callers handle a refusal the same way wherever it happened. A plain
// client sees the code, the message and the detail.
//
// On the server a refused call does not reach the handler; WithBlockHandler
// and WithStreamBlockHandler answer it instead. On the client a refused call
// never reaches the network; WithFallback and WithStreamFallback answer it
// instead.
//
// # Context, origin and the call tree
//
// Inbound calls are entered as Java's gRPC adapter enters them, in no
// named context: they belong to runtime.DefaultContextName
// ("sentinel_default_context"), unless the server's context already carries
// a Sentinel context. The caller's origin, for authority rules, flow rules'
// limitApp and per-origin statistics, comes from
// WithOriginParser, or from a metadata key with WithOriginKey("s-user")
// (OriginFromMetadata). There is none by default. The caller chooses its
// metadata, so an origin is bounded: cut to MaxOriginLen (256) bytes, and
// bytes outside printable ASCII are replaced by '?'. The runtime also caps
// the origins counted apart per resource (runtime.MaxOriginsPerResource).
// Take the origin from a key your gateway or mesh sets.
//
// The handler's context (a unary handler's ctx, a stream's Context()) carries
// the entry: generated wrappers and runtime.Entry called with it are children
// of the method in runtime.Tree, and client calls made with it are too.
//
// # Errors and circuit breakers
//
// A call's error is recorded on its entry, for error-ratio and error-count
// circuit breakers, when the WithErrorCode predicate holds for its status
// code. The default, ServerError, holds for the codes that say the server
// failed: Unknown (also a plain, non-status error), DeadlineExceeded,
// Internal, Unavailable and DataLoss. A handler's panic is recorded as a
// *PanicError (unless the call's context has ended, below), the entry
// exits, and the panic goes on.
//
// No caller can open a breaker for other callers by choosing its own
// deadline or hanging up: a call whose context has ended when it ends —
// canceled, or past its deadline — records no error, whatever the
// predicate says. On a server, the context is the one grpc-go gives the
// handler: it ends when the client cancels the call or the deadline the
// client sent (grpc-timeout) passes, so twenty calls with a 20 ms timeout
// cannot open a method's breaker for every client. On a client, it is the
// call's context, whoever set its deadline: the calling code, or a remote
// caller whose deadline a front service's handler context passes on. A
// handler that fails with DeadlineExceeded while its own context is live
// (a deadline of its own passed) is recorded. The call's response time is
// counted either way, so slow-call-ratio breakers still see a slow method:
// to break on a server that is too slow, use a slow-call rule whose
// maxAllowedRt is below your deadline. The HTTP middleware and Transport
// (runtime/nethttp) follow the same rule.
//
// # Streams
//
// A stream's entry spans the stream and exits exactly once. On a server it
// exits when the handler returns. On a client it exits at the first of:
// RecvMsg returning io.EOF (success), RecvMsg returning the one response of
// a client-streaming call (success), RecvMsg or SendMsg returning another
// error, and the call's context ending (context.AfterFunc: no goroutine
// waits while the stream runs, and none is left once it ends). As gRPC
// requires anyway, read a client stream to its end or cancel its context.
//
// # Arguments for hot-parameter rules
//
// None are passed by default. WithArgs supplies them from the request
// message; it is called only when a hot-parameter rule applies to the
// method's resource (runtime.Resource.NeedsArgs). A stream's entry opens
// before its first message, so WithArgs sees no message for streams.
//
// # Cost
//
// On an admitted call the server interceptor makes one allocation: the
// entry (128 B), which also holds the Sentinel context that carries an
// origin (192 B in all) and, for a stream, the handler's view of the
// stream (160 B, 224 B with an origin). OriginFromMetadata adds grpc-go's
// copy of the metadata value. Around a handler that does nothing it takes
// 0.4-1.5 µs on a busy 2-core machine (BenchmarkUnaryServerInterceptor,
// BenchmarkStreamServerInterceptor: 1 allocation each, with or without an
// origin). The first call of a method, which creates its resource, makes
// one more allocation for the origin's context and one for the stream's
// view. Installing any
// interceptor costs grpc-go's generated code 2 allocations of its own per
// call (the UnaryServerInfo and the handler closure). A unary call over a
// TCP loopback connection (BenchmarkUnaryLoopback, same run) makes 144
// allocations bare, 146 with an interceptor that does nothing and 147 with
// this one, and takes 50-200 µs in each case: the network and grpc-go
// dominate.
package sentinelgrpc
