package nethttp

import (
	"net/http"

	"github.com/sentinelgen/sentinelgen/runtime"
)

type transportConfig struct {
	commonConfig
	fallback func(r *http.Request, b *runtime.BlockError) (*http.Response, error)
}

// Transport protects each request sent through base as an outbound
// resource named "METHOD:scheme://host[:port]/path" (Feign's
// SentinelInvocationHandler). A nil base means http.DefaultTransport.
//
//	client := &http.Client{Transport: nethttp.Transport(nil)}
//
// See the package documentation for naming, errors, blocking and when the
// entry exits.
func Transport(base http.RoundTripper, opts ...TransportOption) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	t := &transport{transportConfig: transportConfig{commonConfig: defaultCommon()}, base: base}
	for _, o := range opts {
		o.applyTransport(&t.transportConfig)
	}
	return t
}

type transport struct {
	transportConfig
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	name := t.resourceName(req)
	if name == "" {
		return t.base.RoundTrip(req) // not protected
	}
	opts := [3]runtime.EntryOption{
		runtime.WithTrafficType(runtime.Outbound),
		runtime.WithResourceType(resourceType),
	}
	n := 2
	if t.args != nil && needsArgs(nil, name) {
		opts[2] = runtime.WithArgs(t.args(req)...)
		n = 3
	}
	e, b := runtime.Entry(req.Context(), name, opts[:n]...)
	if b != nil {
		return t.blocked(req, b)
	}
	return t.send(req, e)
}

// send runs the request on the base transport and hands the entry to the
// response body, or exits it at once when there is no body to wait for.
func (t *transport) send(req *http.Request, e *runtime.SentinelEntry) (*http.Response, error) {
	handedOver := false
	defer func() {
		if !handedOver {
			if p := recover(); p != nil {
				if !callerGaveUp(req) { // else what is left of an abandoned request
					e.SetError(&PanicError{Value: p})
				}
				e.Exit()
				panic(p)
			}
			e.Exit()
		}
	}()
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		if !callerGaveUp(req) {
			e.SetError(err)
		}
		return resp, err
	}
	if t.errorStatus != nil && t.errorStatus(resp.StatusCode) && !callerGaveUp(req) {
		e.SetError(statusError(resp.StatusCode))
	}
	// No body to read (HEAD, 204, 304, ...), or a 101 whose body is the
	// upgraded connection (an io.ReadWriteCloser a wrapper would hide).
	if resp.Body == nil || resp.Body == http.NoBody || resp.StatusCode == http.StatusSwitchingProtocols {
		return resp, nil
	}
	resp.Body = newBody(resp.Body, e, req)
	handedOver = true
	return resp, nil
}

// blocked answers a refused request: the fallback's response, or the
// BlockError, which http.Client wraps in a *url.Error (errors.Is(err,
// runtime.ErrBlocked) holds). As every RoundTripper must, it closes the
// request body the base transport never saw.
func (t *transport) blocked(req *http.Request, b *runtime.BlockError) (*http.Response, error) {
	defer func() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
	}()
	if t.fallback != nil {
		return t.fallback(req, b)
	}
	return nil, b
}

// resourceName is "METHOD:scheme://host/path", the URL part passed through
// the cleaner; "" when the cleaner says not to protect req.
func (t *transport) resourceName(req *http.Request) string {
	method := req.Method
	if method == "" {
		method = http.MethodGet // http.Client's reading of ""
	}
	u := req.URL
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if t.cleaner == nil {
		return method + ":" + u.Scheme + "://" + u.Host + path
	}
	cleaned := t.cleaner(req, u.Scheme+"://"+u.Host+path)
	if cleaned == "" {
		return ""
	}
	return method + ":" + cleaned
}

// CloseIdleConnections closes the base transport's idle connections, so
// http.Client.CloseIdleConnections reaches through this wrapper.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
