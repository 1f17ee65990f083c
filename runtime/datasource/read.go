package datasource

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// DefaultMaxSize is the largest rule file read by default: 4 MiB, Java's
// FileRefreshableDataSource.MAX_SIZE.
const DefaultMaxSize = 4 << 20

// ReadFile reads a rule file of at most maxSize bytes (DefaultMaxSize when
// maxSize <= 0). A larger file is refused with ErrTooLarge, never truncated:
// the first 4 MiB of a rule array are not a smaller valid rule set. Errors
// are *Error values naming path.
//
// Only a regular file (or a symbolic link to one) is read: a FIFO, a
// device or a socket at path is refused with ErrNotRegular rather than
// read, since opening or reading one can block for ever. The file is
// checked before it is opened and again once open (opened non-blocking,
// so that a FIFO swapped in between cannot block the open).
func ReadFile(path string, maxSize int64) ([]byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if fi, err := os.Stat(path); err == nil {
		if err := regular(fi); err != nil {
			return nil, &Error{Name: path, Err: err}
		}
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, &Error{Name: path, Err: describeOpen(err)}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Name: path, Err: err}
	}
	if err := regular(fi); err != nil {
		return nil, &Error{Name: path, Err: err}
	}
	if fi.Size() > maxSize {
		return nil, tooLarge(path, fi.Size(), maxSize)
	}
	// Read one byte past the cap: the file may have grown since Stat.
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, &Error{Name: path, Err: err}
	}
	if int64(len(data)) > maxSize {
		return nil, tooLarge(path, -1, maxSize)
	}
	return data, nil
}

// regular refuses what is not a regular file.
func regular(fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory, want a rule file")
	default:
		return fmt.Errorf("%w (%s), want a rule file", ErrNotRegular, describeMode(m))
	}
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// tooLarge: size < 0 means the file grew past the cap while being read.
func tooLarge(path string, size, maxSize int64) error {
	what := fmt.Sprintf("%d bytes", size)
	if size < 0 {
		what = "grew while being read"
	}
	return &Error{Name: path, Err: fmt.Errorf("file %w: %s, over the %d-byte cap; refused, not truncated (file.WithMaxSize raises the cap)",
		ErrTooLarge, what, maxSize)}
}

func describeOpen(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errMissingFile{}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// errMissingFile says once that the file is missing ("file is missing",
// not "file is missing: file does not exist"), and is fs.ErrNotExist to
// errors.Is.
type errMissingFile struct{}

func (errMissingFile) Error() string        { return "file is missing" }
func (errMissingFile) Is(target error) bool { return target == fs.ErrNotExist }

// LoadFile reads, decodes, validates and loads a rule file once (Java's
// FileInJarReadableDataSource). It returns how many rules are now in
// force from it.
func LoadFile(path string, kind Kind, maxSize int64, opts ...Option) (int, error) {
	data, err := ReadFile(path, maxSize)
	if err != nil {
		return 0, err
	}
	return Load(path, data, kind, opts...)
}

// Load decodes data as a document of kind, named name in errors, then
// validates and loads it: all or nothing, unless WithPolicy(SkipInvalid).
// It returns how many rules are now in force from it; LoadReport also
// returns the warnings.
func Load(name string, data []byte, kind Kind, opts ...Option) (int, error) {
	r, err := LoadReport(name, data, kind, opts...)
	return r.Rules, err
}

// Report is what a load put in force, and what it warns about.
type Report struct {
	Rules    int       // rules in force from the document
	Skipped  int       // invalid rules left out (SkipInvalid only)
	Warnings []Warning // at most MaxWarnings, then a count; skipped rules included
}

// LoadReport is Load with the warnings: every data source loads through
// it, logs the warnings once per new version and keeps them in its
// Status. A refused document has no report.
func LoadReport(name string, data []byte, kind Kind, opts ...Option) (Report, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	rs, err := kind.Decode(name, data)
	if err != nil {
		return Report{}, err
	}
	var skipped []Warning
	if o.policy == SkipInvalid {
		skipped = rs.skipInvalid()
		// Only a document with no rules ([]) clears the rules in force; one
		// whose every rule is invalid is refused, even under Java's policy.
		if len(skipped) > 0 && rs.Len() == 0 {
			return Report{}, &Error{Name: name, Err: fmt.Errorf("%w; the first: %s", ErrAllInvalid, skipped[0].String())}
		}
	}
	if err := rs.Load(); err != nil {
		return Report{}, err
	}
	return Report{Rules: rs.Len(), Skipped: len(skipped), Warnings: rs.Warnings()}, nil
}

// logReport logs a load's outcome once, as every data source does: the
// rule count at info, and when there are warnings one line at warn that
// lists them (skipped rules included). source names the source (a file
// path, an etcd key).
func logReport(source, kind string, rep Report) {
	runtime.Logger().Info("sentinel: rules loaded",
		slog.String("source", source), slog.String("kind", kind), slog.Int("rules", rep.Rules))
	if len(rep.Warnings) == 0 {
		return
	}
	lines := make([]string, len(rep.Warnings))
	for i, w := range rep.Warnings {
		lines[i] = w.String()
	}
	runtime.Logger().Warn("sentinel: rules loaded with warnings",
		slog.String("source", source), slog.String("kind", kind), slog.Int("skipped", rep.Skipped),
		slog.String("warnings", strings.Join(lines, "\n")))
}
