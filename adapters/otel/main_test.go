package sentinelotel_test

import (
	"log/slog"
	"os"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}
