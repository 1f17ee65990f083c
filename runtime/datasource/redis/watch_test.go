package redis_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/redis"
)

// The dashboard and the metrics collector take a Redis source as they take
// a rule file's.
var (
	_ datasource.Source = (*redis.Source)(nil)
)

func TestStartupReadLoadsBeforeWatchReturns(t *testing.T) {
	srv := testserver.StartRedis(t)
	require.NoError(t, writer(t, srv).Set(context.Background(), key, fakerules.Document("getOrder", "listOrders"), 0).Err())

	in := newInstance(t, srv.Addr())
	assert.Equal(t, []string{"getOrder", "listOrders"}, in.m.Resources(), "in force when Watch returns")
	require.NoError(t, in.src.LastError())
	st := in.src.Status()
	assert.Equal(t, "redis:"+key, st.Path)
	assert.Equal(t, "flow", st.Kind)
	assert.Equal(t, 2, st.Rules)
	assert.Equal(t, "redis subscribe", st.Watching)
}

func TestAbsentKeyAtStartKeepsRulesUntilPublished(t *testing.T) {
	srv := testserver.StartRedis(t)
	in := newInstance(t, srv.Addr())
	require.ErrorIs(t, in.src.LastError(), datasource.ErrMissing)
	assert.Empty(t, in.m.Resources())

	publish(t, writer(t, srv), fakerules.Document("getOrder"))
	in.eventuallyInForce("getOrder")
	// The rules are in force a moment before the source records the load.
	require.Eventually(t, func() bool { return in.src.LastError() == nil }, waitFor, tick)
}

func TestEveryMessageIsTheNewDocument(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("v1"))
	in := newInstance(t, srv.Addr())
	// A message alone, without SET, is loaded too (Java's semantics).
	require.NoError(t, w.Publish(context.Background(), channel, fakerules.Document("fromMessage")).Err())
	in.eventuallyInForce("fromMessage")
	require.NoError(t, w.Publish(context.Background(), "another-channel", fakerules.Document("other")).Err())
	publish(t, w, fakerules.Document("v2"))
	in.eventuallyInForce("v2")
}

func TestUpdateReachesThreeSourcesWithinASecond(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("v1"))
	fleet := []*instance{newInstance(t, srv.Addr()), newInstance(t, srv.Addr()), newInstance(t, srv.Addr())}
	applied := make(chan time.Time, len(fleet))
	for _, in := range fleet {
		require.Equal(t, []string{"v1"}, in.m.Resources())
		in.src.Subscribe(func(ev datasource.Event) {
			if ev.Loaded {
				applied <- time.Now()
			}
		})
	}
	start := time.Now()
	publish(t, w, fakerules.Document("v2"))
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
	t.Logf("publish to the last of 3 sources applying it: %v", took)
	assert.Less(t, took, time.Second)
	for _, in := range fleet {
		assert.Equal(t, []string{"v2"}, in.m.Resources())
	}
}

func TestBadValuesKeepTheRulesInForce(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("good"))
	in := newInstance(t, srv.Addr(), redis.WithMaxSize(1024))
	require.Equal(t, []string{"good"}, in.m.Resources())
	ctx := context.Background()

	// kick drops the source's subscription: it reconnects and reads the key.
	kick := func() {
		require.NoError(t, w.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err())
	}
	cases := []struct {
		name  string
		write func()
		is    error
		msg   string
	}{
		{"malformed JSON", func() { publish(t, w, `[{"resource": "x", "count": `) }, datasource.ErrSyntax, "redis:" + key},
		{"a rule the validator refuses", func() { publish(t, w, `[{"resource": "x", "count": -1}]`) }, nil, `rule 0 (resource "x"): count`},
		{"a misspelt threshold", func() { publish(t, w, `[{"resource": "x", "cuont": 5}]`) }, nil, `rule 0 (resource "x"): count is not set, and the rule has "cuont": did you mean "count"?`},
		{"an empty message", func() { publish(t, w, "") }, datasource.ErrEmpty, "write []"},
		{"a message over the size cap", func() { publish(t, w, fakerules.Document(strings.Repeat("x", 2000))) }, datasource.ErrTooLarge, "over the 1024-byte cap"},
		{"the key deleted, read after a reconnection", func() {
			require.NoError(t, w.Del(ctx, key).Err())
			kick()
		}, datasource.ErrMissing, "deleted"},
		{"a malformed key, read after a reconnection", func() {
			require.NoError(t, w.Set(ctx, key, "{", 0).Err())
			kick()
		}, datasource.ErrSyntax, "redis:" + key},
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

			publish(t, w, fakerules.Document("good")) // back to the good version
			require.Eventually(t, func() bool { return in.src.LastError() == nil }, waitFor, tick)
		})
	}

	publish(t, w, "[]")
	require.Eventually(t, func() bool { return len(in.m.Resources()) == 0 && in.src.LastError() == nil }, waitFor, tick,
		"[] clears the rules")
}

// An instance cut off while the server is killed and restarted misses the
// messages published meanwhile; it reads the key when it is back.
func TestOutageCatchesUpFromTheKey(t *testing.T) {
	log := logtest.Capture(t)
	srv := testserver.StartRedis(t)
	proxy := testserver.StartProxy(t, srv.Addr())
	publish(t, writer(t, srv), fakerules.Document("v1"))
	in := newInstance(t, proxy.Addr())
	require.Equal(t, []string{"v1"}, in.m.Resources())

	proxy.Cut()
	srv.Kill()
	require.Eventually(t, func() bool { return in.src.Status().Watching == "redis unreachable; retrying" }, waitFor, tick)
	// The outage is told once, and shown (runtime.Dependencies) while it lasts.
	require.Equal(t, 1, log.Count("redis rule source unreachable"), log.String())
	assert.True(t, dependencyDown(t, in.src.Status().Path))
	srv.Start() // empty: no persistence
	w := writer(t, srv)
	publish(t, w, fakerules.Document("v2"))
	publish(t, w, fakerules.Document("v3"))
	assert.Equal(t, []string{"v1"}, in.m.Resources(), "still cut off: the rules in force stay")

	proxy.Restore()
	in.eventuallyInForce("v3")
	// The rules are in force a moment before the source records the load.
	require.Eventually(t, func() bool { return in.src.LastError() == nil }, waitFor, tick)
	require.Eventually(t, func() bool { return in.src.Status().Watching == "redis subscribe" }, waitFor, tick)
	assert.Equal(t, 1, log.Count("redis rule source answers again"), "the outage's end is told once")
	assert.Equal(t, 1, log.Count("redis rule source unreachable"), "retries are not new outages")
	assert.False(t, dependencyDown(t, in.src.Status().Path))

	publish(t, w, fakerules.Document("v4"))
	in.eventuallyInForce("v4")
}

// A connection that dies without a word (a dead route: nothing is closed,
// nothing answers) is found by the health check's unanswered ping and
// replaced; once the route is back the source reads the key again.
func TestSilentConnectionIsFoundByThePing(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("v1"))
	proxy := testserver.StartProxy(t, srv.Addr())
	in := newInstance(t, proxy.Addr(), redis.WithHealthCheck(50*time.Millisecond))

	proxy.Freeze()
	publish(t, w, fakerules.Document("v2")) // the message waits in the frozen connection
	require.Eventually(t, func() bool { return in.src.Status().Watching == "redis unreachable; retrying" }, waitFor, tick)
	proxy.Cut() // the old connection is gone for good, with v2's message in it
	proxy.Thaw()
	proxy.Restore()
	in.eventuallyInForce("v2")
	require.Eventually(t, func() bool { return in.src.Status().Watching == "redis subscribe" }, waitFor, tick)
}

// A dropped subscription reconnects and reads the key, which was set
// without a message meanwhile.
func TestDroppedConnectionReadsTheKeyAgain(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("v1"))
	proxy := testserver.StartProxy(t, srv.Addr())
	in := newInstance(t, proxy.Addr())

	proxy.Cut()
	require.NoError(t, w.Set(context.Background(), key, fakerules.Document("v2"), 0).Err())
	proxy.Restore()
	in.eventuallyInForce("v2")
}

func TestSaveSetsAndPublishesInOneTransaction(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("v1"))
	a, b := newInstance(t, srv.Addr()), newInstance(t, srv.Addr())

	before := testserver.CommandCalls(t, w)
	require.NoError(t, a.m.LoadRules([]fakerules.Rule{{Resource: "editedOnA", Count: 1}}))
	require.NoError(t, a.src.Save(a.m.Kind()))
	b.eventuallyInForce("editedOnA")
	got, err := w.Get(context.Background(), key).Result()
	require.NoError(t, err)
	assert.Contains(t, got, "editedOnA")

	after := testserver.CommandCalls(t, w)
	for _, cmd := range []string{"multi", "set", "publish", "exec"} {
		assert.Equal(t, int64(1), after[cmd]-before[cmd], cmd)
	}

	err = a.src.Save(fakerules.New("degrade").Kind())
	assert.ErrorContains(t, err, "holds flow rules; cannot save degrade rules")
}

func TestDashboardUpdatesGoToRedis(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("v1"))
	a, b := newInstance(t, srv.Addr()), newInstance(t, srv.Addr())
	h := dashboard.New(dashboard.WithSource(a.src), dashboard.WithAllowedHosts("example.com"), // httptest's Host
		dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: a.m.Kind(), Save: a.src.Save}))
	code, body := put(t, h, "/api/rules/flow", fakerules.Document("fromDashboard"))
	require.Equal(t, 200, code, body)
	b.eventuallyInForce("fromDashboard")
}

func TestWatchArguments(t *testing.T) {
	srv := testserver.StartRedis(t)
	c := writer(t, srv)
	kind := fakerules.New("flow").Kind()
	_, err := redis.Watch(context.Background(), nil, key, channel, kind)
	assert.ErrorContains(t, err, "nil client")
	_, err = redis.Watch(context.Background(), c, "", channel, kind)
	assert.ErrorContains(t, err, "empty key")
	_, err = redis.Watch(context.Background(), c, key, "", kind)
	assert.ErrorContains(t, err, "empty channel")
	_, err = redis.Watch(context.Background(), c, key, channel, nil)
	assert.ErrorContains(t, err, "nil kind")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = redis.Watch(ctx, c, key, channel, kind)
	assert.True(t, errors.Is(err, context.Canceled))
}

func TestUnreachableAtStartIsReportedAndRetried(t *testing.T) {
	srv := testserver.StartRedis(t)
	proxy := testserver.StartProxy(t, srv.Addr())
	proxy.Cut()
	publish(t, writer(t, srv), fakerules.Document("v1"))

	in := newInstance(t, proxy.Addr())
	require.Error(t, in.src.LastError())
	assert.Contains(t, in.src.LastError().Error(), "cannot subscribe to redis channel")
	assert.Empty(t, in.m.Resources())

	proxy.Restore()
	in.eventuallyInForce("v1")
}

func TestCloseEndsEveryGoroutineAndKeepsTheRules(t *testing.T) {
	srv := testserver.StartRedis(t)
	publish(t, writer(t, srv), fakerules.Document("kept"))
	c := newClient(srv.Addr())
	m := fakerules.New("flow")
	src, err := redis.Watch(context.Background(), c, key, channel, m.Kind())
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
	srv := testserver.StartRedis(t)
	in := newInstance(t, srv.Addr())
	closed := make(chan struct{})
	in.src.Subscribe(func(datasource.Event) {
		_ = in.src.Close()
		close(closed)
	})
	publish(t, writer(t, srv), fakerules.Document("x"))
	select {
	case <-closed:
	case <-time.After(waitFor):
		t.Fatal("Close from a subscriber did not return")
	}
}

func TestContextCancelStopsWatching(t *testing.T) {
	srv := testserver.StartRedis(t)
	c := writer(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	src, err := redis.Watch(ctx, c, key, channel, fakerules.New("flow").Kind())
	require.NoError(t, err)
	cancel()
	require.Eventually(t, func() bool { return src.Status().Watching == "closed" }, waitFor, tick)
	require.NoError(t, src.Close())
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
