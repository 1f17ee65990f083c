package transport

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// MetricLogConfig configures Java's metric log.
type MetricLogConfig struct {
	// Dir is the log directory (Java's csp.sentinel.log.dir, by default
	// ~/logs/csp there). Required.
	Dir string
	// MaxFileSize rolls a file once it reaches this many bytes; 50 MiB by
	// default (Java's csp.sentinel.metric.file.single.size).
	MaxFileSize int64
	// MaxFiles is how many files are kept, the oldest removed first; 6 by
	// default (Java's csp.sentinel.metric.file.total.count).
	MaxFiles int
	// UsePID adds ".pid<pid>" to the file name (Java's
	// csp.sentinel.log.use.pid), for several processes of one app sharing
	// a directory.
	UsePID bool
}

// metricLog writes Java's metric log, for tools that read it: each second,
// one line per resource with calls in it (metricNode.FatString), in
// <app>-metrics.log.<yyyy-MM-dd>[.N] under Dir ('.' in the app name
// becomes '-'), and beside each file an index, <file>.idx, of big-endian
// 64-bit pairs: a second (Unix seconds) and the offset of its first line.
// A file is rolled when it reaches MaxFileSize and at midnight (local
// time); at most MaxFiles files are kept. The first file of a day has no
// number, the next ones .1, .2 and so on, as Java's MetricWriter names
// them.
type metricLog struct {
	dir      string
	base     string
	maxSize  int64
	maxFiles int

	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	idx     *os.File
	day     string
	size    int64
	written int64 // the last second written, Unix ms; -1 before the first
}

// openMetricLog prepares the metric log of app; files are created by the
// first Write that has lines.
func openMetricLog(app string, cfg MetricLogConfig) (*metricLog, error) {
	if cfg.Dir == "" {
		return nil, errors.New("transport: MetricLogConfig.Dir is empty")
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("transport: metric log: %w", err)
	}
	l := &metricLog{dir: cfg.Dir, maxSize: cfg.MaxFileSize, maxFiles: cfg.MaxFiles, written: -1}
	if l.maxSize <= 0 {
		l.maxSize = 50 << 20
	}
	if l.maxFiles <= 0 {
		l.maxFiles = 6
	}
	l.base = metricFileName(app, cfg.UsePID)
	return l, nil
}

// metricFileName is Java's MetricWriter.formMetricFileName: the log's
// name before its date.
func metricFileName(app string, usePID bool) string {
	name := strings.ReplaceAll(app, ".", "-") + "-metrics.log"
	if usePID {
		name += ".pid" + strconv.Itoa(os.Getpid())
	}
	return name
}

// Write appends the seconds that are over at now and not written yet (at
// most the minute of history the runtime keeps).
func (l *metricLog) Write(now int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	nodes := metricNodes(now, l.written+1000, now)
	for i := 0; i < len(nodes); {
		sec := nodes[i].Timestamp
		j := i
		for j < len(nodes) && nodes[j].Timestamp == sec {
			j++
		}
		if err := l.writeSecond(sec, nodes[i:j]); err != nil {
			return err
		}
		l.written = sec
		i = j
	}
	return nil
}

func (l *metricLog) writeSecond(sec int64, nodes []metricNode) error {
	day := time.UnixMilli(sec).Format(time.DateOnly)
	if l.f == nil || day != l.day {
		if err := l.roll(day); err != nil {
			return err
		}
	}
	var idx [16]byte
	binary.BigEndian.PutUint64(idx[:8], uint64(sec/1000))
	binary.BigEndian.PutUint64(idx[8:], uint64(l.size))
	if _, err := l.idx.Write(idx[:]); err != nil {
		return fmt.Errorf("transport: metric log index: %w", err)
	}
	for _, n := range nodes {
		line := n.FatString() + "\n"
		if _, err := l.w.WriteString(line); err != nil {
			return fmt.Errorf("transport: metric log: %w", err)
		}
		l.size += int64(len(line))
	}
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("transport: metric log: %w", err)
	}
	if l.size >= l.maxSize {
		return l.roll(day)
	}
	return nil
}

// roll closes the current file and opens the day's next one, removing the
// oldest files beyond MaxFiles.
func (l *metricLog) roll(day string) error {
	if err := l.closeFiles(); err != nil {
		return err
	}
	files, err := l.files()
	if err != nil {
		return err
	}
	for i := 0; i < len(files)-l.maxFiles+1; i++ {
		_ = os.Remove(files[i])
		_ = os.Remove(files[i] + ".idx")
	}
	name := l.base + "." + day
	n := -1
	for _, f := range files {
		rest, ok := strings.CutPrefix(filepath.Base(f), name)
		if !ok {
			continue
		}
		k := 0
		if rest != "" {
			k, _ = strconv.Atoi(strings.TrimPrefix(rest, "."))
		}
		n = max(n, k)
	}
	path := filepath.Join(l.dir, name)
	if n >= 0 {
		path += "." + strconv.Itoa(n+1)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("transport: metric log: %w", err)
	}
	idx, err := os.OpenFile(path+".idx", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("transport: metric log: %w", err)
	}
	l.f, l.w, l.idx, l.day, l.size = f, bufio.NewWriter(f), idx, day, 0
	return nil
}

var metricSuffix = regexp.MustCompile(`^\.([0-9]{4}-[0-9]{2}-[0-9]{2})(?:\.([0-9]*))?$`)

// files lists the log's files, oldest first, as Java's
// MetricFileNameComparator orders them: by date, then by name length
// (.9 before .10), then by name.
func (l *metricLog) files() ([]string, error) {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("transport: metric log: %w", err)
	}
	type file struct{ path, date, name string }
	var fs []file
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, l.base)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		m := metricSuffix.FindStringSubmatch(rest)
		if m == nil {
			continue
		}
		fs = append(fs, file{filepath.Join(l.dir, name), m[1], name})
	}
	slices.SortFunc(fs, func(a, b file) int {
		if c := strings.Compare(a.date, b.date); c != 0 {
			return c
		}
		if c := len(a.name) - len(b.name); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.path
	}
	return out, nil
}

func (l *metricLog) closeFiles() error {
	var err error
	if l.w != nil {
		err = l.w.Flush()
	}
	if l.f != nil {
		err = errors.Join(err, l.f.Close())
	}
	if l.idx != nil {
		err = errors.Join(err, l.idx.Close())
	}
	l.f, l.w, l.idx = nil, nil, nil
	return err
}

// Close closes the files.
func (l *metricLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closeFiles()
}

// writeMetricLog writes the log every second until Close, as Java's
// MetricTimerListener; a failure is logged once until a write succeeds.
func (s *Server) writeMetricLog() {
	defer s.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		err := s.metricLog.Write(runtime.NowMillis())
		switch {
		case err != nil && !failing:
			failing = true
			runtime.Logger().Error("sentinel: metric log write failed; retrying every second", slog.Any("error", err))
		case err == nil && failing:
			failing = false
			runtime.Logger().Info("sentinel: metric log writes again")
		}
	}
}
