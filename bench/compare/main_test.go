package compare

import (
	"log/slog"
	"os"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// TestMain silences the runtime's log: the block log's lines would land
// in the middle of benchmark lines, which benchstat then cannot read.
func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}
