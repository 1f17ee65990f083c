// Package hostguard is the Host allow-list of the runtime's HTTP
// endpoints that change protection (the dashboard handler's rule updates,
// the command center): the defence against DNS rebinding, where a page of
// evil.example whose name is made to resolve to 127.0.0.1 talks to a
// loopback endpoint from the operator's browser as a same-origin page,
// with Host: evil.example.
//
// A request is allowed when its Host (port ignored, case folded, one
// trailing dot dropped) is a loopback name (localhost, *.localhost,
// 127.0.0.0/8, ::1), a name or IP of the List, or the IP address the
// request arrived on. A rebinding page can only send a name it owns,
// never a bare IP, so IPs of the machine are safe to allow.
package hostguard

import (
	"net"
	"net/http"
	"strings"
)

// List is the names and addresses allowed besides the loopback ones and
// the request's local address. The zero value allows only those.
type List struct {
	names []string
	ips   []net.IP
}

// Add adds hosts (names or IPs; a port, if given, is ignored).
func (l *List) Add(hosts ...string) {
	for _, h := range hosts {
		h = Normalize(h)
		if h == "" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil {
			if !ip.IsUnspecified() {
				l.ips = append(l.ips, ip)
			}
			continue
		}
		l.names = append(l.names, h)
	}
}

// Normalize is host as the list compares it: without port or brackets,
// lower case, without a trailing dot.
func Normalize(host string) string {
	host = strings.TrimSpace(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}

// Allowed reports whether r's Host is one the endpoint answers.
func (l *List) Allowed(r *http.Request) bool {
	host := Normalize(r.Host)
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		for _, n := range l.names {
			if n == host {
				return true
			}
		}
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	for _, a := range l.ips {
		if a.Equal(ip) {
			return true
		}
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if lip := addrIP(la); lip != nil && lip.Equal(ip) {
			return true
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
