//go:build unix

package file_test

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

// A FIFO at the rule path used to block Watch in open(2) for ever, waiting
// for a writer. It is refused as not a regular file, and a regular file
// put in its place later loads.
func TestFIFOAtTheRulePathDoesNotHangWatch(t *testing.T) {
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			f := newFixture(t)
			require.NoError(t, syscall.Mkfifo(f.path, 0o644))
			done := make(chan *file.Source, 1)
			go func() {
				src, err := file.Watch(context.Background(), f.path, f.m.Kind(), md.opts...)
				assert.NoError(t, err)
				done <- src
			}()
			select {
			case f.src = <-done:
			case <-time.After(waitFor):
				// Unblock the open so the goroutine can end, then fail.
				if w, err := os.OpenFile(f.path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					_ = w.Close()
				}
				f.src = <-done
				t.Cleanup(func() { _ = f.src.Close() })
				t.Fatal("Watch blocked on a FIFO")
			}
			t.Cleanup(func() { _ = f.src.Close() })
			err := f.src.LastError()
			require.ErrorIs(t, err, datasource.ErrNotRegular)
			assert.Contains(t, err.Error(), "not a regular file (a named pipe), want a rule file")

			require.NoError(t, os.Remove(f.path))
			f.write(fakerules.Document("after.fifo"))
			f.eventuallyInForce("after.fifo")
		})
	}
}

func TestReadFileRefusesSpecialFiles(t *testing.T) {
	_, err := datasource.ReadFile("/dev/zero", 0)
	require.ErrorIs(t, err, datasource.ErrNotRegular)
	assert.Contains(t, err.Error(), "a character device")
}
