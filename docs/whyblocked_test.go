package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

// stamps are the parts of a line that differ from run to run: the log's
// clock, the block log's second, the page's Unix ms.
var stamps = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `), "DATE "},
	{regexp.MustCompile(`second=\S+`), "second=S"},
	{regexp.MustCompile(`"second":\d+`), `"second":S`},
}

func unstamped(s string) string {
	for _, st := range stamps {
		s = st.re.ReplaceAllString(s, st.with)
	}
	return s
}

// Every line docs/why-blocked.md quotes is one the runtime writes, time
// stamps aside: a route with a flow rule of 20 a second is sent 25
// requests in one second, and the block log line, the 429, the page's
// JSON, the metric and a gRPC client's error are found in the page as the
// runtime wrote them.
func TestWhyBlockedQuotesWhatTheRuntimeWrites(t *testing.T) {
	page, err := os.ReadFile("why-blocked.md")
	require.NoError(t, err)
	doc := unstamped(string(page))

	clocktest.Install(t) // the block log's second is the runtime clock's
	var logged bytes.Buffer
	log.SetOutput(&logged) // the default logger, which the runtime writes to unless told otherwise
	t.Cleanup(func() { log.SetOutput(os.Stderr) })

	const route, method = "/api/order", "/orders.OrderService/GetOrder"
	const stock = "http://inventory.internal/v1/stock?sku=42"
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: route, Grade: flow.GradeQPS, Count: 20},
		{Resource: method, Grade: flow.GradeQPS, Count: 10},
		{Resource: "GET:http://inventory.internal/v1/stock", Grade: flow.GradeQPS, Count: 5},
	}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })

	mux := nethttp.NewServeMux()
	mux.HandleFunc("GET "+route, func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "order") })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var last *http.Response
	var body []byte
	for range 25 {
		resp, err := http.Get(srv.URL + route + "?id=1")
		require.NoError(t, err)
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		last = resp
	}
	require.Equal(t, http.StatusTooManyRequests, last.StatusCode)
	answer := fmt.Sprintf("HTTP/1.1 %s\nRetry-After: %s\n\n%s", last.Status, last.Header.Get("Retry-After"), strings.TrimSpace(string(body)))

	// An outbound call: the base transport stands for the network.
	client := &http.Client{Transport: nethttp.Transport(roundTrip(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: r}, nil
	}))}
	var outErr error
	for range 6 {
		resp, err := client.Get(stock)
		if err != nil {
			outErr = err
			continue
		}
		resp.Body.Close()
	}
	require.Error(t, outErr)
	httpPage, err := os.ReadFile("http-grpc.md")
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(httpPage), outErr.Error()), "docs/http-grpc.md quotes an outbound call's error as the runtime writes it:\n%s", outErr)

	var grpcErr error
	for range 11 {
		if _, b := runtime.Entry(context.Background(), method); b != nil {
			grpcErr = sentinelgrpc.BlockStatus(b)
		}
	}
	require.Error(t, grpcErr)

	runtime.FlushBlockLog()
	var blockLine string
	for _, l := range strings.Split(logged.String(), "\n") {
		if strings.Contains(l, "msg=\"sentinel: blocked\"") || strings.Contains(l, "INFO sentinel: blocked ") {
			if strings.Contains(l, "resource="+route+" ") {
				blockLine = l
			}
		}
	}
	require.NotEmpty(t, blockLine, logged.String())

	dash := httptest.NewServer(http.StripPrefix("/sentinel", dashboard.New()))
	defer dash.Close()
	resp, err := http.Get(dash.URL + "/sentinel/api/resources?name=" + route)
	require.NoError(t, err)
	var rs []map[string]json.RawMessage
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&rs))
	resp.Body.Close()
	require.Len(t, rs, 1)
	card := fmt.Sprintf(`"protected": %s,
"blocks": %s,
"lastBlock": %s`, rs[0]["protected"], rs[0]["blocks"], rs[0]["lastBlock"])

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector())
	m := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(m, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var metric string
	for _, l := range strings.Split(m.Body.String(), "\n") {
		if strings.HasPrefix(l, `sentinel_resource_block_by_type_total{block_type="flow",resource="`+route+`"}`) {
			metric = l
		}
	}
	require.NotEmpty(t, metric)

	for what, line := range map[string]string{
		"the block log line":      blockLine,
		"the 429 answer":          answer,
		"the page's JSON":         card,
		"the metric":              metric,
		"the gRPC client's error": grpcErr.Error(),
	} {
		assert.True(t, strings.Contains(doc, unstamped(line)), "docs/why-blocked.md quotes %s as the runtime writes it:\n%s", what, line)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The rule examples of docs/http-grpc.md's outbound section load: the
// first JSON block as flow rules, the second as degrade rules, each naming
// the resource the Transport names the call.
func TestOutboundRuleExamplesLoad(t *testing.T) {
	page, err := os.ReadFile("http-grpc.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(page), "## Outbound HTTP calls\n")
	require.True(t, ok)
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1)
	require.Len(t, blocks, 2)
	for i, kind := range []datasource.Kind{datasource.Flow, datasource.Degrade} {
		set, err := kind.Decode("http-grpc.md", []byte(blocks[i][1]))
		require.NoError(t, err, "the %s example", kind.Name())
		assert.Equal(t, 1, set.Len())
		assert.Contains(t, blocks[i][1], `"resource": "GET:http://inventory.internal/v1/stock"`)
	}
}
