package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Write writes the rules of kind in force to path as Java-compatible JSON
// (Java's field names and numeric codes; a combined kind writes
// {"flow": [...], ...}), atomically: into a temporary file in the same
// directory, synced, then renamed over path, so a reader (a watcher, a Java
// process) sees the old file or the new one, never half of one — Java's
// FileWritableDataSource truncates and writes in place.
//
// When path is a symbolic link, the file it points to is replaced and the
// link kept. A new file gets mode 0644; an existing one keeps its mode.
func Write(path string, kind datasource.Kind) error {
	if kind == nil {
		return errors.New("file.Write: nil kind")
	}
	data, err := kind.Encode()
	if err != nil {
		return fmt.Errorf("file.Write %s: encoding %s rules: %w", path, kind.Name(), err)
	}
	return WriteAtomic(path, append(data, '\n'))
}

// WriteAtomic replaces the file at path with data: temporary file in the
// same directory, fsync, rename, fsync of the directory.
func WriteAtomic(path string, data []byte) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("file.Write %s: is a directory", path)
		}
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	committed = true
	// The rename is durable once the directory is synced; not every file
	// system can sync a directory, and the data is in place either way.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
