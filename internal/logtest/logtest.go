// Package logtest captures the runtime's log for a test, so that tests can
// assert what was logged.
package logtest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Log is the text the runtime logged during one test.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Capture sends the runtime's log (runtime.SetLogger) to a Log, text
// format at info and above, until the test ends; then it discards it.
func Capture(tb testing.TB) *Log {
	tb.Helper()
	l := &Log{}
	runtime.SetLogger(slog.New(slog.NewTextHandler(l, nil)))
	tb.Cleanup(func() { runtime.SetLogger(slog.New(slog.DiscardHandler)) })
	return l
}

// Write appends p; it is the log handler's sink.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Lines returns the lines that contain substr, in order.
func (l *Log) Lines(substr string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if line != "" && strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}

// Count is the number of lines that contain substr.
func (l *Log) Count(substr string) int { return len(l.Lines(substr)) }

// String is everything logged.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
