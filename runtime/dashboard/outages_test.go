package dashboard_test

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
)

// A server protection relies on that stops answering is a line on the
// page for as long as the outage lasts.
func TestSnapshotShowsOutages(t *testing.T) {
	d := runtime.NewDependency("cluster redis", "127.0.0.1:6379", "cluster rules are checked locally")
	t.Cleanup(d.Close)
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	var s dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &s)
	assert.Empty(t, s.Outages, "up: no line")

	d.Down(errors.New("dial tcp 127.0.0.1:6379: connection refused"))
	getJSON(t, srv, "/api/snapshot", &s)
	require.Len(t, s.Outages, 1)
	o := s.Outages[0]
	assert.Equal(t, "cluster redis", o.Kind)
	assert.Equal(t, "127.0.0.1:6379", o.Name)
	assert.Equal(t, "cluster rules are checked locally", o.Impact)
	assert.Contains(t, o.Cause, "connection refused")
	assert.Positive(t, o.SinceMillis)
	_, page := get(t, srv, "/")
	assert.Contains(t, page, `id="outages"`)

	d.Up()
	getJSON(t, srv, "/api/snapshot", &s)
	assert.Empty(t, s.Outages, "over: the line goes")
}
