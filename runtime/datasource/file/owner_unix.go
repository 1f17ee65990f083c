//go:build unix

package file

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives tmp the owner and group of old, when they differ from
// what tmp was created with.
func keepOwner(tmp *os.File, old fs.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fi, err := tmp.Stat()
	if err != nil {
		return err
	}
	if have, ok := fi.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	return tmp.Chown(int(want.Uid), int(want.Gid))
}
