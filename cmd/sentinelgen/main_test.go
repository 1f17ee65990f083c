package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const svcSrc = `package svc

import "context"

type Svc struct{}

//sentinel:resource
func (s *Svc) get(ctx context.Context) (int, error) { return 1, nil }
`

const plainSrc = `package svc

func plain() {}
`

// module makes a module "example.com/m" importing this repository through
// a replace directive, and writes files into it. Tests run sentinelgen in
// it with its env, in parallel.
func module(t *testing.T, files map[string]string) (string, runEnv) {
	t.Helper()
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n\nrequire github.com/sentinelgen/sentinelgen v0.0.0\n\nreplace github.com/sentinelgen/sentinelgen => " + repo + "\n"
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	files["go.sum"] = string(sum)
	for name, content := range files {
		write(t, filepath.Join(dir, name), content)
	}
	t.Parallel()
	// Resolve the replaced module's requirements from the module cache.
	environ := append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOWORK=off")
	return dir, runEnv{dir: dir, environ: environ}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// sentinelgen runs the command in env as main does.
func sentinelgen(env runEnv, args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	env.stdout, env.stderr = &out, &errs
	code = exitCode(runWith(env, args), &errs)
	return code, out.String(), errs.String()
}

func TestUsageErrorsExit2(t *testing.T) {
	code, _, stderr := sentinelgen(runEnv{}, "-nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "usage: sentinelgen")
	code, _, stderr = sentinelgen(runEnv{}, "-h")
	assert.Equal(t, 2, code)
	for _, sub := range []string{"sentinelgen rules check", "sentinelctl rules push", "sentinelgen version"} {
		assert.Contains(t, stderr, sub, "-h names every subcommand")
	}
}

func TestVersionReportsTheModuleVersion(t *testing.T) {
	code, stdout, stderr := sentinelgen(runEnv{}, "version")
	assert.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^sentinelgen \S.* go1\.\d+`, stdout)
	assert.NotContains(t, stdout, "not in std")

	main := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: modulePath, Version: "v1.4.0"}}
	assert.Equal(t, "sentinelgen v1.4.0 go1.26.1", versionLine(main, true))
	dev := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: modulePath, Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "sentinelgen (devel) rev 0123456789ab, modified go1.26.1", versionLine(dev, true))
	tool := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "example.com/app"},
		Deps: []*debug.Module{{Path: modulePath, Version: "v1.3.2"}}}
	assert.Equal(t, "sentinelgen v1.3.2 go1.26.1", versionLine(tool, true), "a go tool of another module")

	code, _, _ = sentinelgen(runEnv{}, "version", "extra")
	assert.Equal(t, 2, code)
}

func TestGeneratesThenLeavesUnchangedFilesAlone(t *testing.T) {
	dir, env := module(t, map[string]string{"svc/svc.go": svcSrc, "svc/plain.go": plainSrc})
	code, _, stderr := sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	out := filepath.Join(dir, "svc", "svc_sentinel.go")
	assert.Contains(t, read(t, out), "func (s *Svc) Get(ctx context.Context) (int, error)")
	assert.NoFileExists(t, filepath.Join(dir, "svc", "plain_sentinel.go"), "no directives, no output")

	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(out, old, old))
	code, _, stderr = sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(old), "an unchanged file is not rewritten")
}

func TestCheckNamesStaleMissingAndOrphanedFilesAndWritesNothing(t *testing.T) {
	dir, env := module(t, map[string]string{"svc/svc.go": svcSrc, "svc/other.go": svcSrc[:len("package svc\n")]})
	out := filepath.Join(dir, "svc", "svc_sentinel.go")

	code, stdout, _ := sentinelgen(env, "-check", "./svc")
	assert.Equal(t, 1, code)
	assert.Equal(t, "missing: "+filepath.Join("svc", "svc_sentinel.go")+"\n", stdout)
	assert.NoFileExists(t, out)

	code, _, stderr := sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = sentinelgen(env, "-check", "./svc")
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)

	generated := read(t, out)
	write(t, out, generated+"// edited\n")
	orphan := filepath.Join(dir, "svc", "gone_sentinel.go")
	write(t, orphan, "// Code generated by sentinelgen. DO NOT EDIT.\n\npackage svc\n\nfunc broken() { undefined() }\n")
	code, stdout, _ = sentinelgen(env, "-check", "./...")
	assert.Equal(t, 1, code)
	assert.Equal(t, "orphaned: "+filepath.Join("svc", "gone_sentinel.go")+"\n"+"stale: "+filepath.Join("svc", "svc_sentinel.go")+"\n", sortLines(stdout))
	assert.Equal(t, generated+"// edited\n", read(t, out), "-check writes nothing")
	assert.FileExists(t, orphan)
}

func TestOrphansAreRemovedButForeignFilesNeverTouched(t *testing.T) {
	foreign := "package svc\n\n// Written by hand.\nfunc handWritten() {}\n"
	dir, env := module(t, map[string]string{
		"svc/svc.go":                svcSrc,
		"svc/old.go":                plainSrc[:len("package svc\n")],
		"svc/mine_sentinel.go":      foreign,
		"svc/old_sentinel.go":       "// Code generated by sentinelgen. DO NOT EDIT.\n\npackage svc\n",
		"svc/deleted_sentinel.go":   "// Code generated by sentinelgen. DO NOT EDIT.\n\npackage svc\n\nfunc (s *Svc) Gone() { s.nothing() }\n",
		"svc/generated_by_other.go": "// Code generated by other. DO NOT EDIT.\n\npackage svc\n",
	})
	code, _, stderr := sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	assert.NoFileExists(t, filepath.Join(dir, "svc", "old_sentinel.go"), "its source lost its directives")
	assert.NoFileExists(t, filepath.Join(dir, "svc", "deleted_sentinel.go"), "its source is gone")
	assert.Equal(t, foreign, read(t, filepath.Join(dir, "svc", "mine_sentinel.go")))
	assert.FileExists(t, filepath.Join(dir, "svc", "generated_by_other.go"))
	assert.FileExists(t, filepath.Join(dir, "svc", "svc_sentinel.go"))

	// Once the last directive goes, so does the output.
	write(t, filepath.Join(dir, "svc", "svc.go"), "package svc\n\ntype Svc struct{}\n")
	code, _, stderr = sentinelgen(env, "-v", "./svc")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "removed "+filepath.Join("svc", "svc_sentinel.go"))
	assert.NoFileExists(t, filepath.Join(dir, "svc", "svc_sentinel.go"))
}

func TestRefusesToOverwriteAFileItDidNotWrite(t *testing.T) {
	foreign := "package svc\n\nfunc handWritten() {}\n"
	dir, env := module(t, map[string]string{"svc/svc.go": svcSrc, "svc/svc_sentinel.go": foreign})
	code, _, stderr := sentinelgen(env, "./svc")
	assert.Equal(t, 1, code)
	assert.Equal(t, filepath.Join("svc", "svc.go")+":7:1: svc_sentinel.go exists and was not written by sentinelgen; move it so that the wrappers can be written there\n", stderr)
	assert.Equal(t, foreign, read(t, filepath.Join(dir, "svc", "svc_sentinel.go")))
}

func TestProblemsAreReportedWithPositionsAndNothingIsWritten(t *testing.T) {
	bad := "package svc\n\nimport \"context\"\n\ntype Svc struct{}\n\n//sentinel:resource fallbak=x traffic=sideways\nfunc (s *Svc) get(ctx context.Context) (int, error) { return 1, nil }\n"
	good := "package good\n\n//sentinel:resource\nfunc get() error { return nil }\n"
	dir, env := module(t, map[string]string{"svc/svc.go": bad, "good/good.go": good})
	code, _, stderr := sentinelgen(env, "./...")
	assert.Equal(t, 1, code)
	assert.Equal(t, filepath.Join("svc", "svc.go")+":7:21: unknown key fallbak; did you mean fallback?\n"+
		filepath.Join("svc", "svc.go")+":7:39: traffic=sideways: want in or out\n", stderr)
	assert.NoFileExists(t, filepath.Join(dir, "svc", "svc_sentinel.go"))
	assert.FileExists(t, filepath.Join(dir, "good", "good_sentinel.go"), "other packages are still generated")
}

func TestTagsSelectFiles(t *testing.T) {
	tagged := "//go:build special\n\npackage svc\n\n//sentinel:resource\nfunc special() error { return nil }\n"
	dir, env := module(t, map[string]string{"svc/svc.go": svcSrc, "svc/special.go": tagged})
	code, _, stderr := sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	assert.NoFileExists(t, filepath.Join(dir, "svc", "special_sentinel.go"))

	code, _, stderr = sentinelgen(env, "-tags", "special", "./svc")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, read(t, filepath.Join(dir, "svc", "special_sentinel.go")), "//go:build special\n")

	// Loaded without the tag again, the output of a file this run cannot
	// see is left alone.
	code, _, stderr = sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	assert.FileExists(t, filepath.Join(dir, "svc", "special_sentinel.go"))
}

func sortLines(s string) string {
	lines := bytes.SplitAfter([]byte(s), []byte("\n"))
	for i := range lines {
		for j := i + 1; j < len(lines); j++ {
			if string(lines[j]) < string(lines[i]) {
				lines[i], lines[j] = lines[j], lines[i]
			}
		}
	}
	return string(bytes.Join(lines, nil))
}

func TestStaleOutputNeverBlocksRegenerationByImportPath(t *testing.T) {
	stale := "// Code generated by sentinelgen. DO NOT EDIT.\n\npackage svc\n\nfunc (s *Svc) Get() { s.renamedAway() }\n"
	user := "package svc\n\nimport \"context\"\n\nfunc use(s *Svc) { _, _ = s.Get(context.Background()) }\n"
	dir, env := module(t, map[string]string{"svc/svc.go": svcSrc, "svc/use.go": user, "svc/svc_sentinel.go": stale})
	code, _, stderr := sentinelgen(env, "example.com/m/svc")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, read(t, filepath.Join(dir, "svc", "svc_sentinel.go")), "func (s *Svc) Get(ctx context.Context) (int, error)")
}
