// Package annotations parses sentinelgen's directive, the Go counterpart of
// Java Sentinel's @SentinelResource:
//
//	//sentinel:resource name="GET:/api/order" blockHandler=handleBlock ignore=ErrNotFound,*NotFoundError
//	func (s *OrderService) getOrder(ctx context.Context, id int64) (*Order, error)
//
// A directive is a line comment in the doc comment of a function or method
// (gofmt moves directive lines to the end of a doc comment). It holds
// key=value pairs separated by spaces; a value is bare (no spaces) or a Go
// double-quoted string, so it may hold spaces, commas and colons. ignore
// and args take comma lists.
//
//	key              value                                                   default
//	name             resource name                                           pkgpath.(*Type).method
//	blockHandler     handler called when blocked (h or pkg.H)                none
//	fallback         handler called on an error or a block                   none
//	defaultFallback  handler taking () or (error)                            none
//	ignore           error values and types never traced                     none
//	traffic          in or out                                               out
//	type             common, web, rpc, gateway, db, cache, mq                common
//	args             parameters passed to hot-parameter rules ("" for none)  all but a leading context.Context
//	batch            tokens acquired per call, at least 1                    1
//	wrapper          name of the generated wrapper                           the method's name capitalised (getOrder → GetOrder)
//	exclude          methods passed through unprotected (decorate)           none
//
// The same keys, but defaultFallback, go on a //sentinel:decorate line
// above an interface type, which protects an implementation of it method
// by method; there name is a template ({method} stands for each method's
// name), blockHandler and fallback name a variable of the interface's type
// or a func(error) returning one, wrapper names the constructor, and
// exclude lists methods passed through unprotected. A //sentinel:resource
// line on one of the interface's methods overrides the keys it gives for
// that method:
//
//	//sentinel:decorate name=payments.{method} fallback=paymentsDown exclude=Ping
//	type Payments interface {
//		//sentinel:resource batch=2
//		Charge(ctx context.Context, orderID int64, cents int) (string, error)
//		Ping() bool
//	}
//
// Parsing is purely syntactic: it checks the grammar and the values it can
// check without types (traffic, type, batch, identifier syntax). Package
// generator resolves names with go/types. Every key and value keeps its
// token.Position, so both packages report problems as
// file:line:col: message, through one error type, Error.
package annotations
