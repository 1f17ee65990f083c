package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// do sends a request with the given Host and headers.
func do(t *testing.T, srv *httptest.Server, method, path, host, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(out)
}

func updatable(t *testing.T, opts ...dashboard.Option) (*httptest.Server, string) {
	t.Helper()
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "dashboard.kept", Grade: flow.GradeQPS, Count: 1}}))
	path := filepath.Join(t.TempDir(), "flow.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"resource":"dashboard.kept","count":1}]`), 0o644))
	opts = append(opts, dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: datasource.Flow, Path: path}))
	srv := httptest.NewServer(dashboard.New(opts...))
	t.Cleanup(srv.Close)
	return srv, path
}

func assertKept(t *testing.T, path string) {
	t.Helper()
	require.Len(t, flow.Rules(), 1)
	assert.Equal(t, "dashboard.kept", flow.Rules()[0].Resource)
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `[{"resource":"dashboard.kept","count":1}]`, string(saved))
}

// A 600 KB PUT of terse rules used to be saved as a 5 MB file the watcher
// refused, and a restart loaded no rules. It is refused with 413; the
// rules in force and the file stay as they were.
func TestRuleUpdateThatWouldNotLoadAgainIsRefused(t *testing.T) {
	srv, path := updatable(t)
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < 600<<10; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"resource":"r` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString("]")
	code, body := put(t, srv, "/api/rules/flow", b.String())
	assert.Equal(t, http.StatusRequestEntityTooLarge, code, body)
	assert.Contains(t, body, "over the 4194304-byte cap")
	assertKept(t, path)

	// The file still loads, as a restart would.
	require.NoError(t, flow.LoadRules(nil))
	src, err := file.Watch(context.Background(), path, datasource.Flow, file.WithoutFSNotify())
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.LastError())
	assert.Len(t, flow.Rules(), 1)
}

// A Save of another source (etcd, Redis) that refuses a document that
// would not load is answered 413, and the rules before are put back.
func TestRuleUpdateRefusedBySaveIsPutBack(t *testing.T) {
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "dashboard.kept", Grade: flow.GradeQPS, Count: 1}}))
	keeper := datasource.NewKeeper(datasource.KeeperConfig{Name: "etcd:/rules", Kind: datasource.Flow, MaxSize: 64})
	rf := dashboard.RuleFile{Kind: datasource.Flow, Save: func(k datasource.Kind) error {
		_, err := keeper.EncodeSave(k)
		return err
	}}
	srv := httptest.NewServer(dashboard.New(dashboard.WithRuleUpdates(rf)))
	defer srv.Close()
	code, body := put(t, srv, "/api/rules/flow", `[{"resource":"dashboard.new","count":5}]`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, code, body)
	require.Len(t, flow.Rules(), 1)
	assert.Equal(t, "dashboard.kept", flow.Rules()[0].Resource)
}

// With rule updates on, nothing checked Host: a DNS-rebinding page could
// read and write rules from the victim's browser.
func TestHostAllowList(t *testing.T) {
	srv, path := updatable(t, dashboard.WithAllowedHosts("dash.example.com:443"))
	port := srv.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndex(port, ":"):]
	tests := []struct {
		host string
		ok   bool
	}{
		{"evil.example" + port, false},
		{"evil.example", false},
		{"localhost.evil.example", false},
		{"", true}, // the listener's address
		{"localhost" + port, true},
		{"app.localhost", true},
		{"[::1]" + port, true},
		{"127.0.0.2", true},
		{"DASH.example.com.", true},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			resp, body := do(t, srv, http.MethodGet, "/api/snapshot", tt.host, "", nil)
			if tt.ok {
				assert.Equal(t, http.StatusOK, resp.StatusCode, body)
				return
			}
			assert.Equal(t, http.StatusForbidden, resp.StatusCode)
			assert.Contains(t, body, "host not allowed")
			resp, _ = do(t, srv, http.MethodPut, "/api/rules/flow", tt.host, `[]`, nil)
			assert.Equal(t, http.StatusForbidden, resp.StatusCode)
			assertKept(t, path)
		})
	}

	// A read-only dashboard answers any Host, unless told otherwise.
	ro := httptest.NewServer(dashboard.New())
	defer ro.Close()
	resp, _ := do(t, ro, http.MethodGet, "/api/snapshot", "evil.example", "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// Writes were not behind http.CrossOriginProtection.
func TestCrossOriginRuleUpdatesAreRefused(t *testing.T) {
	srv, path := updatable(t, dashboard.WithTrustedOrigins("https://admin.example.com"))
	for _, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
		{"Origin": "http://evil.example"},
	} {
		resp, body := do(t, srv, http.MethodPut, "/api/rules/flow", "", `[]`, h)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%v", h)
		assert.Contains(t, body, "cross-origin")
		assertKept(t, path)
	}
	resp, body := do(t, srv, http.MethodPut, "/api/rules/flow", "", `[{"resource":"dashboard.kept","count":1}]`,
		map[string]string{"Sec-Fetch-Site": "same-origin"})
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	resp, body = do(t, srv, http.MethodPut, "/api/rules/flow", "", `[{"resource":"dashboard.kept","count":1}]`,
		map[string]string{"Origin": "https://admin.example.com"})
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	resp, body = do(t, srv, http.MethodPut, "/api/rules/flow", "", `[{"resource":"dashboard.kept","count":1}]`, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a non-browser client (no Origin, no Sec-Fetch-Site): %s", body)
}

// The page set neither nosniff nor frame-ancestors.
func TestEveryResponseSetsNosniffAndFrameAncestors(t *testing.T) {
	srv, _ := updatable(t)
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/"},
		{http.MethodGet, "/api/snapshot"},
		{http.MethodGet, "/api/resources?name=no.such"},
		{http.MethodGet, "/no/such/page"},
		{http.MethodPut, "/api/rules/degrade"},
	} {
		resp, _ := do(t, srv, r.method, r.path, "", "[]", nil)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), r.path)
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'", r.path)
	}
	resp, _ := do(t, srv, http.MethodGet, "/evil", "evil.example", "", nil)
	assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), "refused responses too")
}

// api/resources?name= repeats were each looked up and answered: one
// request could ask for the same resource's history thousands of times.
func TestResourceNamesAreDedupedAndBounded(t *testing.T) {
	e, b := runtime.Entry(context.Background(), "dashboard.names")
	require.Nil(t, b)
	e.Exit()
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	q := url.Values{}
	for range 5000 {
		q.Add("name", "dashboard.names")
	}
	var rs []dashboard.Resource
	getJSON(t, srv, "/api/resources?history=1&"+q.Encode(), &rs)
	assert.Len(t, rs, 1, "repeats count once")

	q = url.Values{}
	for i := range dashboard.MaxNames + 1 {
		q.Add("name", "dashboard.names."+strings.Repeat("x", i))
	}
	code, body := get(t, srv, "/api/resources?"+q.Encode())
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "at most 100")
}

// A source's 118 MB last error was served by api/snapshot every second.
func TestSnapshotBoundsSourceErrors(t *testing.T) {
	huge := errors.New(strings.Repeat("rule 1: bad\n", 1<<20))
	srv := httptest.NewServer(dashboard.New(dashboard.WithSource(fakeSource{st: datasource.Status{Path: "rules/\xff.json", Kind: "flow", LastError: huge}})))
	defer srv.Close()
	code, body := get(t, srv, "/api/snapshot")
	require.Equal(t, http.StatusOK, code)
	assert.Less(t, len(body), 2*dashboard.MaxErrorBytes)
	var s dashboard.Snapshot
	require.NoError(t, json.Unmarshal([]byte(body), &s))
	require.Len(t, s.Sources, 1)
	assert.Equal(t, `rules/\xff.json`, s.Sources[0].Path)
	assert.Contains(t, s.Sources[0].LastError, "bytes in all)")
}

// Names that are not UTF-8 were turned into U+FFFD by encoding/json: two
// names showed as one. They are shown escaped.
func TestJSONNamesAreEscaped(t *testing.T) {
	e, b := runtime.Entry(context.Background(), "dashboard.bytes\xff\n")
	require.Nil(t, b)
	e.Exit()
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	var rs []dashboard.Resource
	getJSON(t, srv, "/api/resources?name="+url.QueryEscape("dashboard.bytes\xff\n"), &rs)
	require.Len(t, rs, 1)
	assert.Equal(t, `dashboard.bytes\xff\n`, rs[0].Name)

	code, body := get(t, srv, "/api/tree")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"dashboard.bytes\\xff\\n"`, "the tree shows it escaped too")
	assert.NotContains(t, body, `\ufffd`)
}
