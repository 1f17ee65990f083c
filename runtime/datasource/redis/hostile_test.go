package redis_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/redis"
)

// netOutput is how many bytes Redis has sent its clients so far.
func netOutput(t *testing.T, srv *testserver.Redis) int64 {
	t.Helper()
	c := newClient(srv.Addr())
	defer c.Close()
	info, err := c.Info(context.Background(), "stats").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "total_net_output_bytes:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no total_net_output_bytes in INFO stats")
	return 0
}

// A value over the cap used to be read whole before it was refused (a
// 64 MiB value allocated 64 MiB, again after every reconnection), and the
// refusal said "file too large" of a key. The key is now read bounded:
// Redis sends no more than the cap, and the error names the key.
func TestOversizedValueIsRefusedUnread(t *testing.T) {
	srv := testserver.StartRedis(t)
	w := writer(t, srv)
	publish(t, w, fakerules.Document("good"))
	in := newInstance(t, srv.Addr(), redis.WithMaxSize(1024))
	require.Equal(t, []string{"good"}, in.m.Resources())
	ctx := context.Background()

	const size = 8 << 20
	require.NoError(t, w.Set(ctx, key, strings.Repeat("x", size), 0).Err())
	before := netOutput(t, srv)
	for range 3 { // every reconnection reads the key again
		reads := in.src.Status().Reads
		require.NoError(t, w.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err())
		require.Eventually(t, func() bool { return in.src.Status().Reads > reads }, waitFor, tick)
		assert.Equal(t, []string{"good"}, in.m.Resources(), "the rules in force are kept")
	}
	sent := netOutput(t, srv) - before
	assert.Less(t, sent, int64(64<<10), "Redis sent %d bytes for three reads of an 8 MiB value", sent)

	err := in.src.LastError()
	require.ErrorIs(t, err, datasource.ErrTooLarge)
	assert.Contains(t, err.Error(), `redis key "`+key+`" too large: 8388608 bytes, over the 1024-byte cap; refused unread`)
	assert.NotContains(t, err.Error(), "file")

	// A message over the cap is refused naming the channel.
	refusals := in.src.Status().Refusals
	publish(t, w, fakerules.Document(strings.Repeat("y", 2000)))
	require.Eventually(t, func() bool { return in.src.Status().Refusals > refusals }, waitFor, tick)
	err = in.src.LastError()
	require.ErrorIs(t, err, datasource.ErrTooLarge)
	assert.Contains(t, err.Error(), "a message on redis channel")
	assert.NotContains(t, err.Error(), "file")
	assert.Equal(t, []string{"good"}, in.m.Resources())
}
