package dashboard

import (
	"net"
	"net/http"
	"strings"
)

// A dashboard that takes rule updates is a write endpoint on the
// application's port, so three defences stand in front of it:
//
//   - Host allow-list (DNS rebinding: a page of evil.example whose name
//     is made to resolve to 127.0.0.1 talks to the handler from the
//     victim's browser as a same-origin page, with Host: evil.example).
//     With rule updates on, a request whose Host is not allowed is
//     answered 403. Allowed by default: the loopback names (localhost and
//     *.localhost, 127.0.0.0/8, ::1) and the address the request arrived
//     on (the listener's host, when it is an IP). WithAllowedHosts adds the
//     names the dashboard is reached by.
//   - http.CrossOriginProtection in front of PUT: a browser's cross-origin
//     write is refused (Sec-Fetch-Site, or Origin against Host), so a page
//     of another site cannot post rules with the user's credentials.
//     WithTrustedOrigins lets a named origin through.
//   - On every response, X-Content-Type-Options: nosniff (JSON is never
//     sniffed into HTML) and Content-Security-Policy frame-ancestors
//     'none' (the page cannot be framed, so not clickjacked).

// WithAllowedHosts adds host names (or IPs; a port, if given, is ignored)
// to those the handler answers when rule updates are on. Giving it at all
// also turns the check on for a read-only handler.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) {
		c.checkHosts = true
		for _, host := range hosts {
			if host = normalizeHost(host); host != "" {
				c.allowedHosts = append(c.allowedHosts, host)
			}
		}
	}
}

// WithTrustedOrigins lets cross-origin rule updates from the given
// origins ("https://admin.example.com") through the cross-origin
// protection; see http.CrossOriginProtection.AddTrustedOrigin. An invalid
// origin makes New panic, as a bad route pattern does.
func WithTrustedOrigins(origins ...string) Option {
	return func(c *config) { c.trustedOrigins = append(c.trustedOrigins, origins...) }
}

func normalizeHost(host string) string {
	host = strings.TrimSpace(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}

// hostAllowed reports whether r's Host is one the handler answers.
func (h *Handler) hostAllowed(r *http.Request) bool {
	host := normalizeHost(r.Host)
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range h.allowedHosts {
		if a == host || (ip != nil && net.ParseIP(a).Equal(ip)) {
			return true
		}
	}
	if ip != nil {
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if lip := addrIP(la); lip != nil && lip.Equal(ip) {
				return true
			}
		}
	}
	return false
}

func addrIP(a net.Addr) net.IP {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP
	case *net.UDPAddr:
		return a.IP
	}
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return net.ParseIP(host)
	}
	return nil
}

// setSecurityHeaders sets the headers every response carries.
func setSecurityHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "frame-ancestors 'none'")
}
