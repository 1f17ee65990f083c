package redislog_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/internal/redislog"
	"github.com/sentinelgen/sentinelgen/runtime"
)

func TestGoRedisLinesGoThroughTheRuntimesLogger(t *testing.T) {
	var buf bytes.Buffer
	runtime.SetLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { runtime.SetLogger(nil) })
	redislog.Logger{}.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts: %v\n", 1, "refused")
	assert.Contains(t, buf.String(), "level=DEBUG")
	assert.Contains(t, buf.String(), `msg="sentinel: go-redis: redis: connection pool: failed to dial after 1 attempts: refused"`)
}
