package nethttp_test

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// lockedBuffer is a log sink that counts what it is given.
type lockedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines int
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines += bytes.Count(p, []byte{'\n'})
	return b.buf.Write(p)
}

// BenchmarkBlockLogUnderRandomOrigins is the attacker's soak: requests to
// rate-limited routes, each with a random caller header, through the
// middleware, over hand-stepped seconds. It reports what the block log
// writes per second of traffic: lines/s and bytes/s.
func BenchmarkBlockLogUnderRandomOrigins(b *testing.B) {
	clock := clocktest.New()
	defer runtime.SetClock(clock)()
	sink := &lockedBuffer{}
	runtime.SetLogger(slog.New(slog.NewTextHandler(sink, nil)))
	defer runtime.SetLogger(slog.New(slog.DiscardHandler))

	const routes = 50
	mux := http.NewServeMux()
	var rules []flow.Rule
	for i := range routes {
		p := "/soak/" + strconv.Itoa(i)
		mux.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
		rules = append(rules, flow.Rule{Resource: p, Grade: flow.GradeQPS, Count: 5})
	}
	if err := flow.LoadRules(rules); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = flow.LoadRules(nil) }()
	h := nethttp.Middleware(nethttp.WithOriginParser(nethttp.OriginFromHeader("X-Caller")))(mux)

	reqs := make([]*http.Request, 4096)
	for i := range reqs {
		r := httptest.NewRequest("GET", "/soak/"+strconv.Itoa(i%routes), nil)
		r.Header.Set("X-Caller", "")
		reqs[i] = r
	}
	const perSecond = 20_000
	w := httptest.NewRecorder()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i > 0 && i%perSecond == 0 {
			clock.Advance(time.Second)
		}
		r := reqs[i%len(reqs)]
		r.Header["X-Caller"][0] = strconv.FormatUint(rand.Uint64(), 36) // a caller never seen before
		h.ServeHTTP(w, r)
	}
	b.StopTimer()
	clock.Advance(time.Second)
	runtime.FlushBlockLog()
	seconds := float64(b.N)/perSecond + 1
	sink.mu.Lock()
	defer sink.mu.Unlock()
	b.ReportMetric(float64(sink.lines)/seconds, "lines/s")
	b.ReportMetric(float64(sink.buf.Len())/seconds, "logbytes/s")
}
