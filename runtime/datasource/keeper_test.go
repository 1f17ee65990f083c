package datasource_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestKeeperLoadsNewVersionsAndKeepsTheLastGood(t *testing.T) {
	m := fakerules.New("flow")
	var events []datasource.Event
	ch := make(chan datasource.Event, 10)
	k := datasource.NewKeeper(datasource.KeeperConfig{
		Name: "etcd:/k", Kind: m.Kind(), Noun: "etcd rule key", Watching: "etcd watch", MaxSize: 64,
		Subscribers: []func(datasource.Event){func(ev datasource.Event) { events = append(events, ev) }},
		Events:      ch,
	})
	assert.Equal(t, datasource.Status{Path: "etcd:/k", Kind: "flow", Watching: "etcd watch"}, k.Status())

	assert.True(t, k.Offer([]byte(`[{"resource":"a","count":1}]`), nil))
	assert.Equal(t, []string{"a"}, m.Resources())
	assert.False(t, k.Offer([]byte(`[{"resource":"a","count":1}]`), nil), "the same bytes again: nothing new")
	assert.Equal(t, 1, m.Loads())

	for _, bad := range []struct {
		data []byte
		err  error
		is   error
	}{
		{[]byte(`[{"resource":`), nil, datasource.ErrSyntax},
		{[]byte(`[{"resource":"b","count":-1}]`), nil, nil},
		{[]byte(``), nil, datasource.ErrEmpty},
		{[]byte(`[{"resource":"` + strings.Repeat("x", 100) + `"}]`), nil, datasource.ErrTooLarge},
		{nil, &datasource.Error{Name: "etcd:/k", Err: datasource.ErrMissing}, datasource.ErrMissing},
	} {
		assert.True(t, k.Offer(bad.data, bad.err))
		require.Error(t, k.LastError())
		if bad.is != nil {
			assert.ErrorIs(t, k.LastError(), bad.is)
		}
		assert.Contains(t, k.LastError().Error(), "etcd:/k")
		assert.Equal(t, []string{"a"}, m.Resources(), "refused: the rules in force stay")
	}
	assert.False(t, k.Offer(nil, &datasource.Error{Name: "etcd:/k", Err: datasource.ErrMissing}), "the same error again")

	assert.True(t, k.Offer([]byte(`[]`), nil))
	assert.Empty(t, m.Resources(), "[] clears")
	st := k.Status()
	assert.Equal(t, 2, st.Loads)
	assert.Equal(t, 5, st.Refusals)
	assert.Equal(t, 9, st.Reads)
	require.Len(t, events, 7)
	assert.True(t, events[0].Loaded)
	assert.False(t, events[1].Loaded)
	assert.Len(t, ch, 7)

	assert.False(t, k.Offer([]byte(`[]`), nil))
	require.NoError(t, m.LoadRules([]fakerules.Rule{{Resource: "set-in-memory", Count: 1}}))
	assert.True(t, k.Offer([]byte(`[]`), nil),
		"the rules in force changed since (a dashboard set them): the same version loads again, as Java's property compares with the value in force")
	assert.Empty(t, m.Resources())
}

func TestKeeperSubscribersAndLogs(t *testing.T) {
	var logs bytes.Buffer
	runtime.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { runtime.SetLogger(slog.New(slog.DiscardHandler)) })
	m := fakerules.New("flow")
	k := datasource.NewKeeper(datasource.KeeperConfig{Name: "redis:k", Kind: m.Kind(), Noun: "redis rule key"})
	calls := 0
	cancel := k.Subscribe(func(datasource.Event) { calls++ })
	k.Subscribe(func(datasource.Event) { panic("subscriber bug") })
	assert.NotNil(t, k.Subscribe(nil))

	k.Offer([]byte(`[{"resource":"a"}]`), nil)
	k.Offer([]byte(`[{"resource":"a","count":-1}]`), nil)
	cancel()
	k.Offer([]byte(`[]`), nil)
	assert.Equal(t, 2, calls)
	assert.Contains(t, logs.String(), "sentinel: rules loaded")
	assert.Contains(t, logs.String(), "sentinel: redis rule key refused; the rules in force are kept")
	assert.Contains(t, logs.String(), "sentinel: redis rule key subscriber panicked")

	k.SetWatching("closed")
	assert.Equal(t, "closed", k.Status().Watching)
}

func TestSummaryKeepsTenLines(t *testing.T) {
	lines := make([]string, 25)
	for i := range lines {
		lines[i] = "line"
	}
	got := datasource.Summary(errors.New(strings.Join(lines, "\n")))
	assert.Equal(t, 11, strings.Count(got, "\n")+1)
	assert.True(t, strings.HasSuffix(got, "... and 15 more"))
	assert.Equal(t, "one", datasource.Summary(errors.New("one")))
}

func TestEncodeCheckedAndSaveKind(t *testing.T) {
	flow, degrade := fakerules.New("flow"), fakerules.New("degrade")
	require.NoError(t, flow.LoadRules([]fakerules.Rule{{Resource: "a", Count: 1}}))
	data, err := datasource.EncodeChecked("etcd:/k", flow.Kind())
	require.NoError(t, err)
	assert.Contains(t, string(data), `"resource":"a"`)

	combined := datasource.NewCombined(flow.Kind(), degrade.Kind())
	k, err := datasource.SaveKind(combined, flow.Kind())
	require.NoError(t, err)
	assert.Equal(t, combined, k, "a combined source saves every kind")
	k, err = datasource.SaveKind(flow.Kind(), nil)
	require.NoError(t, err)
	assert.Equal(t, "flow", k.Name())
	_, err = datasource.SaveKind(flow.Kind(), degrade.Kind())
	assert.ErrorContains(t, err, "holds flow rules; cannot save degrade rules")
}

// encodesBadly encodes a document its own validation refuses.
type encodesBadly struct{ datasource.Kind }

func (encodesBadly) Encode() ([]byte, error) { return []byte(`[{"resource": "", "count": 1}]`), nil }

func TestEncodeCheckedRefusesWhatWouldNotLoadAgain(t *testing.T) {
	_, err := datasource.EncodeChecked("etcd:/k", encodesBadly{fakerules.New("flow").Kind()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "do not encode to a document that loads; not written")
	assert.Contains(t, err.Error(), "resource is blank")
}

// FuzzKeeperOffer: whatever a source reads, the Keeper never panics, and a
// version it refuses leaves the rules in force as they were.
func FuzzKeeperOffer(f *testing.F) {
	for _, seed := range []string{`[]`, `[{"resource":"a","count":1}]`, `[{"resource":`, ``, `null`, `{}`,
		`[{"resource":"b","count":-1}]`, "\xff", `[null]`, `[{"resource":"c","grade":"QPS"}]`} {
		f.Add([]byte(seed))
	}
	m := fakerules.New("flow")
	k := datasource.NewKeeper(datasource.KeeperConfig{Name: "fuzz", Kind: m.Kind(), MaxSize: 1 << 16})
	require.True(f, k.Offer([]byte(`[{"resource":"kept","count":1}]`), nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		before := m.Resources()
		k.Offer(data, nil)
		if k.LastError() != nil {
			assert.Equal(t, before, m.Resources())
		}
	})
}

func TestKeeperSaysNoRulesAreInForceUntilTheFirstLoad(t *testing.T) {
	logs := logtest.Capture(t)
	m := fakerules.New("flow")
	k := datasource.NewKeeper(datasource.KeeperConfig{Name: "rules/flow.json", Kind: m.Kind(), Noun: "rule file"})

	k.Offer(nil, &datasource.Error{Name: "rules/flow.json", Err: errors.New("file is missing")})
	k.Offer([]byte(`[{"resource":`), nil)
	assert.Equal(t, 2, logs.Count("sentinel: rule file not loaded; none of its rules are in force until a valid version appears"),
		"nothing was ever loaded from it: nothing is kept")
	assert.Zero(t, logs.Count("the rules in force are kept"))

	k.Offer([]byte(`[{"resource":"a"}]`), nil)
	k.Offer([]byte(`[{"resource":`), nil)
	assert.Equal(t, 1, logs.Count("sentinel: rule file refused; the rules in force are kept"), "once loaded, a refusal keeps them")
	assert.Equal(t, []string{"a"}, m.Resources())
}
