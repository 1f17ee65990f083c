package redis_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// put sends a PUT to h and returns the status and body.
func put(t *testing.T, h http.Handler, path, body string) (int, string) {
	req := httptest.NewRequest(http.MethodPut, path, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}
