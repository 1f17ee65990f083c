package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// fresh is name the first time it is asked for in the process, and
// name-2, name-3, ... after: resources keep their blocks since the process
// started, so a test that counts them names its own in each run (-count).
func fresh(name string) string {
	freshMu.Lock()
	defer freshMu.Unlock()
	freshRuns[name]++
	if n := freshRuns[name]; n > 1 {
		return fmt.Sprintf("%s-%d", name, n)
	}
	return name
}

var (
	freshMu   sync.Mutex
	freshRuns = map[string]int{}
)

// traffic sets up rules and drives calls for seconds seconds of the hand
// clock: on order, 8 calls a second against a flow limit of 5 (5 pass, 3
// block) taking 10-29 ms; on payment, 2 calls a second that fail, which
// open its error-count breaker (more than 1 error in a second) at once. It returns the resources' names.
func traffic(t *testing.T, clk *clocktest.Clock, prefix string, seconds int) (order, payment string) {
	t.Helper()
	order, payment = prefix+".order", prefix+".payment"
	runtime.Declare(runtime.ResourceSpec{Name: order, Traffic: runtime.Inbound, Type: runtime.Web})
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: order, Grade: flow.GradeQPS, Count: 5}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.NoError(t, degrade.LoadRules([]degrade.Rule{
		{Resource: payment, Grade: degrade.ErrorCount, Count: 1, TimeWindow: 60, MinRequestAmount: 1},
	}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })
	ctx := runtime.EnterContext(context.Background(), "dashboard_test", "")
	for s := range seconds {
		for i := range 8 {
			if e, b := runtime.Entry(ctx, order); b == nil {
				clk.Advance(time.Duration(10+(s*7+i*3)%20) * time.Millisecond)
				e.Exit()
			}
		}
		for range 2 {
			if e, b := runtime.Entry(ctx, payment); b == nil {
				clk.Advance(5 * time.Millisecond)
				e.SetError(errors.New("card declined"))
				e.Exit()
			}
		}
		clk.Advance(time.Second - time.Duration(clk.Millis()%1000)*time.Millisecond)
	}
	return order, payment
}

// fakeSource is a source with a given status; its other methods are not
// called.
type fakeSource struct {
	datasource.Source
	st datasource.Status
}

func (f fakeSource) Status() datasource.Status { return f.st }

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

func getJSON(t *testing.T, srv *httptest.Server, path string, v any) {
	t.Helper()
	code, body := get(t, srv, path)
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), v), body)
}

func put(t *testing.T, srv *httptest.Server, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(out)
}
