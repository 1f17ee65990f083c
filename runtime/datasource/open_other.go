//go:build !unix

package datasource

import "os"

// openNonBlocking opens path for reading; the regular-file check before
// the open is what keeps other special files out on these systems.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
