package hostguard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAllowed(t *testing.T) {
	var l List
	l.Add("Admin.Example.", "10.0.0.7:8719", "0.0.0.0", "", "[2001:db8::1]")
	local := &net.TCPAddr{IP: net.ParseIP("192.168.1.5"), Port: 8719}
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:8719": true, "app.localhost": true, "127.0.0.1:8719": true, "127.9.9.9": true,
		"[::1]:8719": true, "admin.example": true, "ADMIN.EXAMPLE:443": true, "10.0.0.7": true, "[2001:db8::1]:80": true,
		"192.168.1.5:8719": true, // the address the request arrived on
		"evil.example":     false, "localhost.evil.example": false, "127.0.0.1.evil.example": false, "": false,
		"0.0.0.0": false, "10.0.0.8": false, "admin.example.evil": false,
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
		assert.Equal(t, want, l.Allowed(r), "Host %q", host)
	}
}
