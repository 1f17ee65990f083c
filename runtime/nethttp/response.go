package nethttp

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// statusWriter records the status code a handler answers with, so that
// Middleware can count 5xx responses as errors.
//
// It keeps the optional interfaces of the ResponseWriter it wraps:
// Unwrap serves http.ResponseController (deadlines, full duplex), and
// Flush, FlushError, Hijack, Push and ReadFrom are methods of their own
// for code that type-asserts http.Flusher, http.Hijacker, http.Pusher or
// io.ReaderFrom. Where the wrapped writer lacks one, Hijack and Push return
// http.ErrNotSupported and Flush does nothing, as http.ResponseController
// does.
//
// It lives in the allocation of the request's entry, so it is kept to 24
// bytes: a hijack is recorded as the code hijackedCode rather than in a
// field of its own.
type statusWriter struct {
	http.ResponseWriter
	code int // 0 until the status is known; hijackedCode after a hijack
}

// hijackedCode is statusWriter's code once the connection is hijacked: no
// status code is below 100, and no later write replaces it.
const hijackedCode = -1

// status is the response's status: 200 when the handler wrote nothing
// (net/http sends 200 then), 0 after a hijack.
func (w *statusWriter) status() int {
	switch w.code {
	case hijackedCode:
		return 0
	case 0:
		return http.StatusOK
	}
	return w.code
}

func (w *statusWriter) WriteHeader(code int) {
	// 1xx other than 101 are informational: the final status comes later.
	if w.code == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap returns the wrapped ResponseWriter, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() { _ = w.FlushError() }

// FlushError is what http.ResponseController.Flush calls first: it keeps
// the wrapped writer's flush error.
func (w *statusWriter) FlushError() error {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.code = hijackedCode
	}
	return conn, rw, err
}

func (w *statusWriter) Push(target string, opts *http.PushOptions) error {
	if p, ok := w.ResponseWriter.(http.Pusher); ok {
		return p.Push(target, opts)
	}
	return http.ErrNotSupported
}

// ReadFrom keeps the sendfile/splice path of the server's own writer.
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{w.ResponseWriter}, r)
}

// writerOnly hides every method but Write, so io.Copy cannot loop back
// into ReadFrom.
type writerOnly struct{ io.Writer }
