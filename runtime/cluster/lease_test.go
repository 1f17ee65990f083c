package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
)

func withLeases(cfg *cluster.Config) { cfg.Leases = true }

// Two leasing clients share one window of a minute: together they are
// admitted exactly the count, most calls without a round trip.
func TestLeasesAdmitExactlyTheCount(t *testing.T) {
	s := testserver.StartRedis(t)
	a := newClient(t, s, "lease:", withLeases)
	b := newClient(t, s, "lease:", withLeases)
	rule := clusterRule("lease", 50, 41, 1, 1, 60000)
	ctx := context.Background()
	admitted := 0
	for i := range 200 {
		c := a
		if i%3 == 0 {
			c = b
		}
		ok, err := c.Check(ctx, &rule, 1)
		require.NoError(t, err)
		if ok {
			admitted++
		}
	}
	assert.Equal(t, 50, admitted, "never over the count; the rest refused without asking once a window is spent")
	st := a.Stats()
	t.Logf("a: %+v", st)
	t.Logf("b: %+v", b.Stats())
	assert.Less(t, a.Stats().Leases+b.Stats().Leases, int64(30), "batches, not a round trip per call")
	_ = time.Second
}
