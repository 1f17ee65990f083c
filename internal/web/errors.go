package web

import (
	"fmt"
	"net/http"
	"strconv"
)

// StatusError is the error recorded on an entry whose response status
// the error-status predicate counts as an error (5xx by default).
type StatusError struct {
	Code int
}

func (e *StatusError) Error() string {
	return "nethttp: response status " + strconv.Itoa(e.Code) + " " + http.StatusText(e.Code)
}

// statusErrors holds one StatusError per valid status code, so recording a
// 5xx response allocates nothing.
var statusErrors [500]StatusError // codes 100..599

func init() {
	for i := range statusErrors {
		statusErrors[i].Code = 100 + i
	}
}

// StatusErrorOf returns the StatusError of code, shared for valid codes.
func StatusErrorOf(code int) *StatusError {
	if code >= 100 && code <= 599 {
		return &statusErrors[code-100]
	}
	return &StatusError{Code: code}
}

// PanicError is the error recorded on an entry whose handler panicked. The
// panic itself goes on after the entry exits.
type PanicError struct {
	Value any // what the handler panicked with
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("nethttp: handler panicked: %v", e.Value)
}

// Unwrap returns the panic value when it is an error, so that
// errors.Is(err, http.ErrAbortHandler) holds for an aborted handler.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
