package dashboard

import "net/http"

// A dashboard that takes rule updates is a write endpoint on the
// application's port, so three defences stand in front of it:
//
//   - Host allow-list (internal/hostguard; DNS rebinding: a page of evil.example whose name
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
		c.allowedHosts.Add(hosts...)
	}
}

// WithTrustedOrigins lets cross-origin rule updates from the given
// origins ("https://admin.example.com") through the cross-origin
// protection; see http.CrossOriginProtection.AddTrustedOrigin. An invalid
// origin makes New panic, as a bad route pattern does.
func WithTrustedOrigins(origins ...string) Option {
	return func(c *config) { c.trustedOrigins = append(c.trustedOrigins, origins...) }
}

// setSecurityHeaders sets the headers every response carries.
func setSecurityHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "frame-ancestors 'none'")
}
