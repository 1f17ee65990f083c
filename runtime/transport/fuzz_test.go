package transport_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// Whatever a caller sends, the command center answers with a status it
// documents, never 500 and never a panic, and an answer that is text.
func FuzzCommand(f *testing.F) {
	srv := start(f, transport.Config{MaxBodyBytes: 1 << 16})
	for _, seed := range []struct{ path, query, body string }{
		{"setRules", "type=flow", "data=%5B%7B%22resource%22%3A%22x%22%2C%22count%22%3A1%7D%5D"},
		{"setRules", "type=degrade", "data=%5B%7B%22resource%22%3A%22x%22%7D%5D"},
		{"setParamFlowRules", "", "data=[{\"resource\":\"x\",\"paramIdx\":0,\"count\":1}]"},
		{"getRules", "type=system", ""},
		{"metric", "startTime=0&endTime=99999999999999&identity=x", ""},
		{"metric", "startTime=-1&maxLines=-5", ""},
		{"setSwitch", "value=true", ""},
		{"cnode", "id=%00", ""},
		{"tree", "id=", "a=b&&=&c"},
		{"origin", "id=x#frag", "%"},
		{"jsonTree", "", "\xff\xfe"},
		{"x/../y", "a=%C3%28", ""},
	} {
		f.Add(seed.path, seed.query, seed.body)
	}
	f.Cleanup(func() { clearRulesTB(f) })
	f.Fuzz(func(t *testing.T, path, query, body string) {
		if path == "setSwitch" {
			path = "getSwitch" // the switch would change every other test's runtime
		}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.URL.Path = "/" + path
		req.Host = "127.0.0.1" // httptest's example.com is not an allowed Host
		req.URL.RawQuery = query
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		require.NotPanics(t, func() { srv.ServeHTTP(rec, req) })
		assert.Contains(t, []int{200, 400, 413}, rec.Code, rec.Body.String())
		assert.True(t, utf8.Valid(rec.Body.Bytes()) || rec.Code == 200, "messages are text")
	})
}

func FuzzParseDashboards(f *testing.F) {
	for _, s := range []string{"a:1", "http://a:8080,https://b", "[::1]:80", ":", ",,,", "https://:443", "a:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		eps, _ := transport.ParseDashboards(s)
		for _, e := range eps {
			assert.NotEmpty(t, e.Host)
			assert.True(t, e.Port > 1 && e.Port < 65535, e.Port)
			assert.Contains(t, []string{"http", "https"}, e.Scheme)
		}
	})
}
