// Package redislog sends go-redis's own log lines (failed dials, pool
// errors, which it writes to stderr by default) through the runtime's
// logger (runtime.SetLogger), so nothing the packages on Redis cause
// bypasses it. Packages that use go-redis call Install from init.
//
// The lines go at debug level: during an outage go-redis writes one per
// failed dial, while the runtime says once that the outage began and
// once that it ended (runtime.Dependency). A program that calls
// redis.SetLogger itself after importing them keeps its own logger.
package redislog

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Logger is a go-redis logger writing to the runtime's logger.
type Logger struct{}

// Printf logs one go-redis line at debug level.
func (Logger) Printf(ctx context.Context, format string, v ...any) {
	runtime.Logger().DebugContext(ctx, "sentinel: go-redis: "+strings.TrimSpace(fmt.Sprintf(format, v...)))
}

var once sync.Once

// Install makes Logger go-redis's logger, once per process.
func Install() { once.Do(func() { redis.SetLogger(Logger{}) }) }
