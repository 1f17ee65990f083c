package wrappertest

import (
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func TestMain(m *testing.M) {
	// Blocked calls are logged; the tests block on purpose.
	runtime.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}
