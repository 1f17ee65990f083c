package file

import (
	"os"
	"time"
)

// fingerprint is what polling compares before it reads the file: the
// resolved file's size, mtime and identity (a rename over the file, or a
// ConfigMap's symlink swap, changes the identity even when size and mtime
// happen to match).
type fingerprint struct {
	exists bool
	size   int64
	mtime  time.Time
	info   os.FileInfo
}

func stat(path string) fingerprint {
	fi, err := os.Stat(path) // follows symlinks: the content's file
	if err != nil {
		return fingerprint{}
	}
	return fingerprint{exists: true, size: fi.Size(), mtime: fi.ModTime(), info: fi}
}

func (f fingerprint) same(g fingerprint) bool {
	if f.exists != g.exists {
		return false
	}
	if !f.exists {
		return true
	}
	return f.size == g.size && f.mtime.Equal(g.mtime) && os.SameFile(f.info, g.info)
}
