package etcd_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/etcd"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
)

// The dashboard and the metrics collector take an etcd source as they take
// a rule file's.
var (
	_ datasource.Source = (*etcd.Source)(nil)
)

func TestStartupReadLoadsBeforeWatchReturns(t *testing.T) {
	srv := testserver.StartEtcd(t)
	w := srv.Client(t)
	defer w.Close()
	rev := put(t, w, key, fakerules.Document("getOrder", "listOrders"))

	in := newInstance(t, srv, srv.Addr())
	assert.Equal(t, []string{"getOrder", "listOrders"}, in.m.Resources(), "in force when Watch returns")
	require.NoError(t, in.src.LastError())
	st := in.src.Status()
	assert.Equal(t, "etcd:"+key, st.Path)
	assert.Equal(t, "flow", st.Kind)
	assert.Equal(t, 2, st.Rules)
	assert.Equal(t, 1, st.Loads)
	assert.Equal(t, rev, in.src.Revision())
	require.Eventually(t, func() bool { return in.src.Status().Watching == "etcd watch" }, waitFor, tick)
}

func TestAbsentKeyAtStartKeepsRulesUntilWritten(t *testing.T) {
	srv := testserver.StartEtcd(t)
	in := newInstance(t, srv, srv.Addr())
	require.ErrorIs(t, in.src.LastError(), datasource.ErrMissing)
	assert.Empty(t, in.m.Resources())
	assert.Zero(t, in.src.Revision())

	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("getOrder"))
	in.eventuallyInForce("getOrder")
	// The rules are in force a moment before the source records the load.
	require.Eventually(t, func() bool { return in.src.LastError() == nil }, waitFor, tick)
}

func TestUpdateReachesThreeSourcesWithinASecond(t *testing.T) {
	srv := testserver.StartEtcd(t)
	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("v1"))
	fleet := []*instance{newInstance(t, srv, srv.Addr()), newInstance(t, srv, srv.Addr()), newInstance(t, srv, srv.Addr())}
	for _, in := range fleet {
		require.Equal(t, []string{"v1"}, in.m.Resources())
	}

	applied := make(chan time.Time, len(fleet))
	for _, in := range fleet {
		in.src.Subscribe(func(ev datasource.Event) {
			if ev.Loaded {
				applied <- time.Now()
			}
		})
	}
	start := time.Now()
	put(t, w, key, fakerules.Document("v2"))
	var last time.Time
	for range fleet {
		select {
		case at := <-applied:
			last = at
		case <-time.After(waitFor):
			t.Fatal("an instance never applied the update")
		}
	}
	took := last.Sub(start)
	t.Logf("put to the last of 3 sources applying it: %v", took)
	assert.Less(t, took, time.Second)
	for _, in := range fleet {
		assert.Equal(t, []string{"v2"}, in.m.Resources())
	}
}

func TestBadValuesKeepTheRulesInForce(t *testing.T) {
	srv := testserver.StartEtcd(t)
	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("good"))
	in := newInstance(t, srv, srv.Addr(), etcd.WithMaxSize(1024))
	require.Equal(t, []string{"good"}, in.m.Resources())

	cases := []struct {
		name  string
		write func()
		is    error
		msg   string
	}{
		{"malformed JSON", func() { put(t, w, key, `[{"resource": "x", "count": `) }, datasource.ErrSyntax, "etcd:" + key},
		{"a rule the validator refuses", func() { put(t, w, key, `[{"resource": "x", "count": -1}]`) }, nil, `rule 0 (resource "x"): count`},
		{"a misspelt threshold", func() { put(t, w, key, `[{"resource": "x", "cuont": 5}]`) }, nil, `rule 0 (resource "x"): count is not set, and the rule has "cuont": did you mean "count"?`},
		{"an empty value", func() { put(t, w, key, "") }, datasource.ErrEmpty, "write []"},
		{"null", func() { put(t, w, key, "null") }, nil, "null"},
		{"a value over the size cap", func() { put(t, w, key, fakerules.Document(string(make([]byte, 2000)))) }, datasource.ErrTooLarge, "over the 1024-byte cap"},
		{"the key deleted", func() {
			_, err := w.Delete(context.Background(), key)
			require.NoError(t, err)
		}, datasource.ErrMissing, "deleted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			refusals := in.src.Status().Refusals
			c.write()
			require.Eventually(t, func() bool { return in.src.Status().Refusals > refusals }, waitFor, tick)
			err := in.src.LastError()
			require.Error(t, err)
			if c.is != nil {
				assert.ErrorIs(t, err, c.is)
			}
			assert.Contains(t, err.Error(), c.msg)
			assert.Equal(t, []string{"good"}, in.m.Resources(), "the rules in force stay")

			put(t, w, key, fakerules.Document("good")) // back to the good version
			require.Eventually(t, func() bool { return in.src.LastError() == nil }, waitFor, tick)
		})
	}

	put(t, w, key, "[]")
	require.Eventually(t, func() bool { return len(in.m.Resources()) == 0 && in.src.LastError() == nil }, waitFor, tick,
		"[] clears the rules")
}

// catchUp cuts one instance off (the server is killed, and restarted
// while the instance still cannot reach it), writes meanwhile, then lets
// the instance back: it ends on the last version written. Resuming from
// the last revision replays every version in order; after a compaction
// the key is read again, and only its last version is loaded.
func catchUp(t *testing.T, compact bool) {
	srv := testserver.StartEtcd(t)
	proxy := testserver.StartProxy(t, srv.Addr())
	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("v1"))
	in := newInstance(t, srv, proxy.Addr())
	require.Equal(t, []string{"v1"}, in.m.Resources())
	loads := in.m.Loads()
	var mu sync.Mutex
	var loaded []string
	in.m.Property().Listen(func(rs []fakerules.Rule) {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range rs {
			loaded = append(loaded, r.Resource)
		}
	})

	log := logtest.Capture(t)
	proxy.Cut()
	srv.Kill()
	require.Eventually(t, func() bool { return in.src.Status().Watching == "etcd unreachable; retrying" }, waitFor, tick)
	// The outage is told once, and shown (runtime.Dependencies) while it lasts.
	require.Equal(t, 1, log.Count("etcd rule source unreachable"), log.String())
	assert.True(t, dependencyDown(t, in.src.Status().Path))
	srv.Start()
	put(t, w, key, fakerules.Document("v2"))
	last := put(t, w, key, fakerules.Document("v3"))
	put(t, w, "/unrelated", "x")
	if compact {
		_, err := w.Compact(context.Background(), last+1)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"v1"}, in.m.Resources(), "still cut off: the rules in force stay")
	assert.Equal(t, loads, in.m.Loads())

	proxy.Restore()
	in.eventuallyInForce("v3")
	// The rules are in force a moment before the source records the load.
	require.Eventually(t, func() bool { return in.src.LastError() == nil }, waitFor, tick)
	assert.Equal(t, last, in.src.Revision())
	require.Eventually(t, func() bool { return in.src.Status().Watching == "etcd watch" }, waitFor, tick)
	assert.Equal(t, 1, log.Count("etcd rule source answers again"), "the outage's end is told once")
	assert.Equal(t, 1, log.Count("etcd rule source unreachable"), "retries are not new outages")
	assert.False(t, dependencyDown(t, in.src.Status().Path))
	mu.Lock()
	if compact {
		assert.Equal(t, []string{"v3"}, loaded, "read again: the last version only")
	} else {
		assert.Equal(t, []string{"v2", "v3"}, loaded, "resumed: every version, in order")
	}
	mu.Unlock()

	put(t, w, key, fakerules.Document("v4"))
	in.eventuallyInForce("v4")
}

func TestOutageResumesFromTheLastRevision(t *testing.T) { catchUp(t, false) }

func TestOutageAfterCompactionReadsTheKeyAgain(t *testing.T) { catchUp(t, true) }

func TestSecondWriterGetsAConflict(t *testing.T) {
	srv := testserver.StartEtcd(t)
	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("v1"))
	a := newInstance(t, srv, srv.Addr())
	// b's watcher is held up on the first event after start, so b still
	// believes the key is at the revision it read, as a slower instance
	// would.
	gate := make(chan struct{})
	b := newInstance(t, srv, srv.Addr())
	b.src.Subscribe(func(datasource.Event) { <-gate })
	defer close(gate)
	read := b.src.Revision()
	require.Equal(t, read, a.src.Revision())

	require.NoError(t, a.m.LoadRules([]fakerules.Rule{{Resource: "editedOnA", Count: 1}}))
	require.NoError(t, a.src.Save(a.m.Kind()))
	got, err := w.Get(context.Background(), key)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"resource":"editedOnA","grade":0,"count":1,"controlBehavior":0}]`, string(got.Kvs[0].Value))

	require.NoError(t, b.m.LoadRules([]fakerules.Rule{{Resource: "editedOnB", Count: 2}}))
	err = b.src.Save(b.m.Kind())
	require.ErrorIs(t, err, etcd.ErrConflict)
	assert.Contains(t, err.Error(), "nothing written")
	got, err = w.Get(context.Background(), key)
	require.NoError(t, err)
	assert.Contains(t, string(got.Kvs[0].Value), "editedOnA", "the first write stands")
}

func TestCompareAndPut(t *testing.T) {
	srv := testserver.StartEtcd(t)
	c := srv.Client(t)
	defer c.Close()
	ctx := context.Background()

	rev, err := etcd.CompareAndPut(ctx, c, key, []byte("[]"), 0)
	require.NoError(t, err, "0: the key must be absent, and is")
	_, err = etcd.CompareAndPut(ctx, c, key, []byte("[]"), 0)
	require.ErrorIs(t, err, etcd.ErrConflict)

	rev2, err := etcd.CompareAndPut(ctx, c, key, []byte(fakerules.Document("a")), rev)
	require.NoError(t, err)
	_, err = etcd.CompareAndPut(ctx, c, key, []byte(fakerules.Document("b")), rev)
	require.ErrorIs(t, err, etcd.ErrConflict)
	assert.Contains(t, err.Error(), "now at")
	got, err := c.Get(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, rev2, got.Kvs[0].ModRevision)
}

func TestSaveOfAnotherKindIsRefused(t *testing.T) {
	srv := testserver.StartEtcd(t)
	in := newInstance(t, srv, srv.Addr())
	err := in.src.Save(fakerules.New("degrade").Kind())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds flow rules; cannot save degrade rules")
}

func TestCombinedKeyLoadsEveryKind(t *testing.T) {
	srv := testserver.StartEtcd(t)
	c := srv.Client(t)
	defer c.Close()
	flow, degrade := fakerules.New("flow"), fakerules.New("degrade")
	kind := datasource.NewCombined(flow.Kind(), degrade.Kind())
	put(t, c, "/sentinel/rules", `{"flow": `+fakerules.Document("f")+`, "degrade": `+fakerules.Document("d")+`}`)
	src, err := etcd.Watch(context.Background(), c, "/sentinel/rules", kind)
	require.NoError(t, err)
	defer src.Close()
	assert.Equal(t, []string{"f"}, flow.Resources())
	assert.Equal(t, []string{"d"}, degrade.Resources())

	// The dashboard updates one kind; the combined key gets every kind.
	require.NoError(t, flow.LoadRules([]fakerules.Rule{{Resource: "f2"}}))
	require.NoError(t, src.Save(flow.Kind()))
	got, err := c.Get(context.Background(), "/sentinel/rules")
	require.NoError(t, err)
	assert.Contains(t, string(got.Kvs[0].Value), `"f2"`)
	assert.Contains(t, string(got.Kvs[0].Value), `"d"`)
}

func TestWatchArguments(t *testing.T) {
	srv := testserver.StartEtcd(t)
	c := srv.Client(t)
	defer c.Close()
	kind := fakerules.New("flow").Kind()
	_, err := etcd.Watch(context.Background(), nil, key, kind)
	assert.ErrorContains(t, err, "nil client")
	_, err = etcd.Watch(context.Background(), c, "", kind)
	assert.ErrorContains(t, err, "empty key")
	_, err = etcd.Watch(context.Background(), c, key, nil)
	assert.ErrorContains(t, err, "nil kind")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = etcd.Watch(ctx, c, key, kind)
	assert.True(t, errors.Is(err, context.Canceled))
}

func TestUnreachableAtStartIsReportedAndRetried(t *testing.T) {
	srv := testserver.StartEtcd(t)
	proxy := testserver.StartProxy(t, srv.Addr())
	proxy.Cut()
	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("v1"))

	in := newInstance(t, srv, proxy.Addr(), etcd.WithTimeout(300*time.Millisecond))
	require.Error(t, in.src.LastError())
	assert.Contains(t, in.src.LastError().Error(), "cannot read the key from etcd")
	assert.Empty(t, in.m.Resources())

	proxy.Restore()
	in.eventuallyInForce("v1")
}

func TestCloseEndsEveryGoroutineAndKeepsTheRules(t *testing.T) {
	srv := testserver.StartEtcd(t)
	c := srv.Client(t)
	put(t, c, key, fakerules.Document("kept"))
	m := fakerules.New("flow")
	src, err := etcd.Watch(context.Background(), c, key, m.Kind())
	require.NoError(t, err)
	require.NoError(t, src.Close())
	require.NoError(t, src.Close(), "idempotent")
	assert.Equal(t, "closed", src.Status().Watching)
	require.NoError(t, c.Close())
	assert.Equal(t, []string{"kept"}, m.Resources())
	goleak.VerifyNone(t, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"),
		goleak.IgnoreCurrent())
}

func TestCloseFromASubscriberReturns(t *testing.T) {
	srv := testserver.StartEtcd(t)
	in := newInstance(t, srv, srv.Addr())
	closed := make(chan struct{})
	in.src.Subscribe(func(datasource.Event) {
		_ = in.src.Close()
		close(closed)
	})
	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("x"))
	select {
	case <-closed:
	case <-time.After(waitFor):
		t.Fatal("Close from a subscriber did not return")
	}
}

func TestContextCancelStopsWatching(t *testing.T) {
	srv := testserver.StartEtcd(t)
	c := srv.Client(t)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	src, err := etcd.Watch(ctx, c, key, fakerules.New("flow").Kind())
	require.NoError(t, err)
	cancel()
	require.Eventually(t, func() bool { return src.Status().Watching == "closed" }, waitFor, tick)
	require.NoError(t, src.Close())
}

// The dashboard's rule updates go to etcd through Save; the second editor,
// whose instance had not seen the first one's write, is told.
func TestDashboardUpdatesCompareAndSwap(t *testing.T) {
	srv := testserver.StartEtcd(t)
	w := srv.Client(t)
	defer w.Close()
	put(t, w, key, fakerules.Document("v1"))
	a := newInstance(t, srv, srv.Addr())
	gate := make(chan struct{})
	b := newInstance(t, srv, srv.Addr())
	b.src.Subscribe(func(datasource.Event) { <-gate })
	defer close(gate)
	// httptest requests name Host example.com.
	dashA := dashboard.New(dashboard.WithSource(a.src), dashboard.WithAllowedHosts("example.com"),
		dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: a.m.Kind(), Save: a.src.Save}))
	dashB := dashboard.New(dashboard.WithSource(b.src), dashboard.WithAllowedHosts("example.com"),
		dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: b.m.Kind(), Save: b.src.Save}))

	code, body := httpPut(dashA, "/api/rules/flow", fakerules.Document("fromA"))
	require.Equal(t, http.StatusOK, code, body)
	code, body = httpPut(dashB, "/api/rules/flow", fakerules.Document("fromB"))
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "the key changed since it was read")
	got, err := w.Get(context.Background(), key)
	require.NoError(t, err)
	assert.Contains(t, string(got.Kvs[0].Value), "fromA")
}

func httpPut(h http.Handler, path, body string) (int, string) {
	req := httptest.NewRequest(http.MethodPut, path, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// A key is bytes to etcd; the source's name in errors, logs and metric
// labels is valid UTF-8 whatever the key.
func TestMetricsTakeTheSourceWhateverTheKey(t *testing.T) {
	srv := testserver.StartEtcd(t)
	c := srv.Client(t)
	defer c.Close()
	odd := "/rules/\xff\n"
	put(t, c, odd, fakerules.Document("a"))
	src, err := etcd.Watch(context.Background(), c, odd, fakerules.New("flow").Kind())
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.LastError())
	assert.Equal(t, `etcd:/rules/\xff\n`, src.Status().Path)

	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(metrics.NewCollector(metrics.WithSource(src))))
	n, err := testutil.GatherAndCount(reg, "sentinel_datasource_loads_total")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// dependencyDown reports whether runtime.Dependencies shows the source
// named name (Status().Path) down.
func dependencyDown(t *testing.T, name string) bool {
	t.Helper()
	for _, d := range runtime.Dependencies() {
		if d.Name == name {
			return d.Down
		}
	}
	t.Fatalf("no dependency %s in %+v", name, runtime.Dependencies())
	return false
}
