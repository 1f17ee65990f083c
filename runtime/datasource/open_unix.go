//go:build unix

package datasource

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without blocking: opening a FIFO
// for reading would otherwise wait for a writer. Reads of a regular file
// are not affected by O_NONBLOCK.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
