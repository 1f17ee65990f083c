package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// ErrWouldNotLoad is the cause of a Write refused because the file it
// would write could not be loaded again: over the size cap a Source reads
// (datasource.ErrTooLarge too), or refused by decoding and validation. The
// file is left as it was. It is datasource.ErrWouldNotLoad, which the
// other sources' write-backs wrap too.
var ErrWouldNotLoad = datasource.ErrWouldNotLoad

// Write writes the rules of kind in force to path as Java-compatible JSON
// (Java's field names and numeric codes, compact; a combined kind writes
// {"flow":[...],...}), atomically: into a temporary file in the same
// directory, synced, then renamed over path, so a reader (a watcher, a Java
// process) sees the old file or the new one, never half of one — Java's
// FileWritableDataSource truncates and writes in place.
//
// What is written must load again: the encoding is decoded and validated
// as a Source would, and must fit the size cap (WithMaxSize, 4 MiB by
// default: give Write the options the Source watching path has). Otherwise
// nothing is written and the error wraps ErrWouldNotLoad.
//
// An existing file keeps its mode, owner and group (a Write that cannot
// give the new file the old one's owner, for want of privilege, is refused
// and changes nothing); a new file gets mode 0644.
//
// When path is a symbolic link, the file it resolves to is replaced and
// the link kept, so that a Source reading through the link (a ConfigMap's
// ..data link, swapped at each update) reads what was written. The target
// must lie in the link's directory or below it: a link that leads anywhere
// else is refused, not followed, so that a planted link cannot make the
// process overwrite a file of its choosing.
func Write(path string, kind datasource.Kind, opts ...Option) error {
	if kind == nil {
		return errors.New("file.Write: nil kind")
	}
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	data, err := kind.Encode()
	if err != nil {
		return fmt.Errorf("file.Write %s: encoding %s rules: %w", path, kind.Name(), err)
	}
	data = append(data, '\n')
	if int64(len(data)) > cfg.maxSize {
		return fmt.Errorf("file.Write %s: %w: the %s rules encode to %d bytes, over the %d-byte cap a Source reads (%w); the file is unchanged",
			path, ErrWouldNotLoad, kind.Name(), len(data), cfg.maxSize, datasource.ErrTooLarge)
	}
	set, err := kind.Decode(path, data)
	if err == nil {
		err = set.Validate()
	}
	if err != nil {
		return fmt.Errorf("file.Write %s: %w: %w; the file is unchanged", path, ErrWouldNotLoad, err)
	}
	return WriteAtomic(path, data)
}

// WriteAtomic replaces the file at path with data: temporary file in the
// same directory, fsync, rename, fsync of the directory. It keeps mode,
// owner and group, and follows a symbolic link only within its directory,
// as Write does.
func WriteAtomic(path string, data []byte) error {
	target, err := writeTarget(path)
	if err != nil {
		return fmt.Errorf("file.Write %s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	var old fs.FileInfo
	if fi, err := os.Stat(target); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("file.Write %s: is a directory", path)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("file.Write %s: %w (%s), not replaced", path, datasource.ErrNotRegular, fi.Mode().Type())
		}
		mode, old = fi.Mode().Perm(), fi
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
	if old != nil {
		if err := keepOwner(tmp, old); err != nil {
			return fmt.Errorf("file.Write %s: cannot keep the file's owner and group: %w; the file is unchanged", path, err)
		}
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

// writeTarget is the file a write of path replaces: path itself, or, when
// path is a symbolic link, the file it resolves to, provided that lies in
// path's directory or below.
func writeTarget(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil // a new file, or not a link: written in place
	}
	resolved, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		// A dangling link: replace the link itself with the file, which
		// is then what a Source reads at path.
		return path, nil
	}
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(dir, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("is a symbolic link to %s, outside its directory %s; not followed, not written", resolved, dir)
	}
	return resolved, nil
}
