package dashboard

import (
	_ "embed"
	"net/http"
)

// page is the introspection page: one HTML file with its script and styles
// inline, no external assets and no build step. It polls api/snapshot
// every second (a relative URL, so the handler may be mounted under any
// prefix) and draws the charts as inline SVG.
//
//go:embed page.html
var page []byte

func servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
	_, _ = w.Write(page)
}
