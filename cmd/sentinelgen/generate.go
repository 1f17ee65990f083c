package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sentinelgen/sentinelgen/generator"
	"github.com/sentinelgen/sentinelgen/internal/rulecheck"
)

const generateUsage = "usage: sentinelgen [-check] [-tags list] [-v] [packages]\n" +
	"       sentinelgen rules check [-kind name] [-pkg patterns] [-also names] [-tags list] [-strict] FILE...\n" +
	"       sentinelgen version"

// genFlags is the generator's command line, parsed.
type genFlags struct {
	check    bool
	tags     []string
	verbose  bool
	patterns []string
}

func parseGenFlags(args []string, stderr io.Writer) (genFlags, error) {
	var f genFlags
	fs := flag.NewFlagSet("sentinelgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.check, "check", false, "write nothing; exit 1 if a generated file is stale, missing or orphaned")
	tags := fs.String("tags", "", "comma-separated build tags for loading")
	fs.BoolVar(&f.verbose, "v", false, "report files written and removed, and timings")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), generateUsage)
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nSubcommands: rules check validates rule files (sentinelgen rules check -h), version prints the version.\n"+
			"sentinelctl rules push publishes a rule file to etcd or Redis (go run github.com/sentinelgen/sentinelgen/cmd/sentinelctl -h).")
	}
	if err := fs.Parse(args); err != nil {
		return f, usageError{} // flag printed the problem (or -h's help) and the usage
	}
	for t := range strings.SplitSeq(*tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			f.tags = append(f.tags, t)
		}
	}
	f.patterns = fs.Args() // none: the generator's default, "."
	return f, nil
}

func runGenerate(env runEnv, args []string) error {
	stdout, stderr, cwd := env.stdout, env.stderr, env.dir
	f, err := parseGenFlags(args, stderr)
	if err != nil {
		return err
	}
	res, err := generator.Generate(generator.Config{Dir: cwd, Patterns: f.patterns, Tags: f.tags, Env: env.environ})
	if err != nil {
		return err
	}
	rel := func(path string) string { return rulecheck.RelPath(cwd, path) }

	problems := false
	for _, e := range res.Errors() {
		if e.Pos.Filename == "" {
			fmt.Fprintln(stderr, "sentinelgen:", e.Msg) // a package-level problem: no Go files, say
			problems = true
			continue
		}
		e.Pos.Filename = rel(e.Pos.Filename)
		fmt.Fprintln(stderr, e)
		problems = true
	}
	out := &outputs{check: f.check, verbose: f.verbose, goGenerate: env.goGenerate, stdout: stdout, stderr: stderr, rel: rel}
	for _, p := range res.Packages {
		if len(p.Errors) > 0 {
			continue
		}
		for _, file := range p.Files {
			out.write(file)
		}
		for _, path := range p.Orphans {
			out.remove(path)
		}
	}
	if f.verbose {
		peak := ""
		if rss, ok := peakMemory(); ok {
			peak = fmt.Sprintf(", peak memory %d MB", rss>>20)
		}
		fmt.Fprintf(stderr, "sentinelgen: load %v, generate %v%s\n", res.Timing.Load.Round(1e5), res.Timing.Generate.Round(1e4), peak)
	}
	if out.failed {
		problems = true
	}
	if f.check && out.outdated > 0 {
		fmt.Fprintf(stderr, "sentinelgen: %d generated file(s) out of date; run go generate\n", out.outdated)
		problems = true
	}
	if problems {
		return problemsError{}
	}
	return nil
}

// outputs applies a run's results to the file system, or under -check
// only compares.
type outputs struct {
	check, verbose bool
	goGenerate     bool // orphans are emptied, not removed (see Stub)
	stdout, stderr io.Writer
	rel            func(string) string
	outdated       int
	failed         bool
}

func (o *outputs) write(f generator.File) {
	old, err := os.ReadFile(f.Path)
	switch {
	case err == nil && bytes.Equal(old, f.Content):
		return // unchanged: not rewritten, so its mtime does not trigger rebuilds
	case err == nil && !generator.IsGenerated(old):
		// The generator refuses this too; never overwrite a user's file.
		fmt.Fprintf(o.stderr, "%s: not written by sentinelgen; not overwriting\n", o.rel(f.Path))
		o.failed = true
		return
	case o.check && err == nil:
		fmt.Fprintf(o.stdout, "stale: %s\n", o.rel(f.Path))
		o.outdated++
		return
	case o.check:
		fmt.Fprintf(o.stdout, "missing: %s\n", o.rel(f.Path))
		o.outdated++
		return
	}
	if err := writeFileAtomic(f.Path, f.Content); err != nil {
		fmt.Fprintln(o.stderr, "sentinelgen:", err)
		o.failed = true
		return
	}
	if o.verbose {
		fmt.Fprintf(o.stderr, "wrote %s\n", o.rel(f.Path))
	}
}

// remove removes an orphan; under go generate, it empties it instead
// (generator.Stub), since go generate fails on a file removed under it.
// An orphan already emptied is not out of date.
func (o *outputs) remove(path string) {
	old, err := os.ReadFile(path)
	if err != nil || !generator.IsGenerated(old) {
		return
	}
	if o.check {
		if !generator.IsStub(old) {
			fmt.Fprintf(o.stdout, "orphaned: %s\n", o.rel(path))
			o.outdated++
		}
		return
	}
	if o.goGenerate {
		stub, _ := generator.Stub(old)
		if bytes.Equal(stub, old) {
			return
		}
		if err := writeFileAtomic(path, stub); err != nil {
			fmt.Fprintln(o.stderr, "sentinelgen:", err)
			o.failed = true
			return
		}
		if o.verbose {
			fmt.Fprintf(o.stderr, "emptied %s (removed when sentinelgen runs outside go generate)\n", o.rel(path))
		}
		return
	}
	if err := os.Remove(path); err != nil {
		fmt.Fprintln(o.stderr, "sentinelgen:", err)
		o.failed = true
		return
	}
	if o.verbose {
		fmt.Fprintf(o.stderr, "removed %s\n", o.rel(path))
	}
}

// writeFileAtomic replaces path through a temporary file, so that a build
// running beside go generate never reads half a file.
func writeFileAtomic(path string, content []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sentinelgen-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
