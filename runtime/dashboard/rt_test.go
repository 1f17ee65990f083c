package dashboard_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
)

// fastCalls makes n calls of res that take d each.
func fastCalls(t *testing.T, clk *clocktest.Clock, res string, n int, d time.Duration) {
	t.Helper()
	for range n {
		e, b := runtime.Entry(context.Background(), res)
		require.Nil(t, b)
		clk.Advance(d)
		e.Exit()
	}
}

func TestAResourceWithAHistogramListsItsDistribution(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	res, plain := fresh(t.Name()+".hist"), fresh(t.Name()+".plain")
	runtime.EnableRTHistogram(res)
	fastCalls(t, clk, res, 98, 420*time.Microsecond)
	fastCalls(t, clk, res, 2, 30*time.Millisecond)
	fastCalls(t, clk, plain, 1, time.Millisecond)
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	var rs []dashboard.Resource
	getJSON(t, srv, "/api/resources?name="+res+"&name="+plain, &rs)
	require.Len(t, rs, 2)
	d := rs[0].RTDistribution
	require.NotNil(t, d)
	assert.EqualValues(t, 100, d.Count)
	assert.InDelta(t, (98*420+2*30_000)/100.0, d.MeanMicros, 1e-9)
	assert.EqualValues(t, 500, d.P50Micros, "420 µs is in the bucket up to 500 µs")
	assert.EqualValues(t, 500, d.P90Micros)
	assert.EqualValues(t, 50_000, d.P99Micros, "the 99th call took 30 ms")
	assert.Equal(t, runtime.RTHistogramBounds(), d.BoundsMicros)
	assert.Nil(t, rs[1].RTDistribution, "off unless turned on")
}

// The page lists a histogram's percentiles, in µs below a millisecond,
// beside the last second's sub-millisecond mean.
func TestPageShowsAHistogramsPercentiles(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	res := t.Name()
	runtime.EnableRTHistogram(res)
	clk.Advance(time.Second - time.Duration(clk.Millis()%1000)*time.Millisecond + 100*time.Millisecond)
	fastCalls(t, clk, res, 50, 420*time.Microsecond)
	fastCalls(t, clk, res, 1, 3*time.Millisecond)
	clk.Advance(time.Second) // the calls' second is the last whole one
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dom := chromium(t, ctx, "--virtual-time-budget=3000", "--dump-dom", srv.URL+"/")

	card := regexp.MustCompile(`data-resource="` + regexp.QuoteMeta(res) + `">.*?</svg>`).FindString(dom)
	require.NotEmpty(t, card, "the resource has a card: %.3000s", dom)
	assert.Regexp(t, `<span class="rt"><b>0\.\d+</b> ms avg</span>`, card, "a mean below a millisecond")
	assert.Contains(t, card, `<span class="rt" data-rt-distribution="">p50 ≤ 500 µs · p90 ≤ 500 µs · p99 ≤ 5 ms</span>`)
}
