package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/generator"
)

// Under go generate an orphan is emptied, not removed: go generate lists
// the package's files first and fails on one removed meanwhile. The stub
// builds, -check does not report it, and a run outside go generate
// removes it.
func TestOrphansUnderGoGenerateAreEmptiedThenRemovedOutside(t *testing.T) {
	dir, env := module(t, map[string]string{"svc/svc.go": svcSrc})
	out := filepath.Join(dir, "svc", "svc_sentinel.go")
	code, _, stderr := sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, out)

	write(t, filepath.Join(dir, "svc", "svc.go"), "package svc\n\ntype Svc struct{}\n")
	env.goGenerate = true
	code, _, stderr = sentinelgen(env, "-v", "./svc")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "emptied "+filepath.Join("svc", "svc_sentinel.go"))
	stub := read(t, out)
	assert.True(t, generator.IsStub([]byte(stub)), stub)
	assert.Contains(t, stub, "\npackage svc\n")

	code, _, stderr = sentinelgen(env, "-v", "./svc")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "emptied", "a stub is left alone")
	code, stdout, stderr := sentinelgen(env, "-check", "./svc")
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout, "a stub is not out of date")
	build := exec.Command("go", "vet", "./...")
	build.Dir, build.Env = dir, env.environ
	b, err := build.CombinedOutput()
	require.NoError(t, err, "%s", b)

	env.goGenerate = false
	code, _, stderr = sentinelgen(env, "-v", "./svc")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "removed "+filepath.Join("svc", "svc_sentinel.go"))
	assert.NoFileExists(t, out)
}

// go generate ./... itself: deleting an annotated method, then its
// directive, exits 0 and leaves a package that builds.
func TestGoGenerateSurvivesRemovedDirectives(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sentinelgen")
	gobuild := exec.Command("go", "build", "-o", bin, ".")
	b, err := gobuild.CombinedOutput()
	require.NoError(t, err, "%s", b)

	dir, env := module(t, map[string]string{
		// gen.go sorts before svc_sentinel.go: go generate opens the
		// output after sentinelgen ran.
		"svc/gen.go": "package svc\n\n//go:generate " + bin + "\n",
		"svc/svc.go": svcSrc + "\n//sentinel:resource\nfunc (s *Svc) put(ctx context.Context) error { return nil }\n",
		"svc/use.go": "package svc\n\nimport \"context\"\n\nfunc use(s *Svc) { s.Get(context.Background()) }\n",
	})
	goGenerate := func() {
		t.Helper()
		cmd := exec.Command("go", "generate", "./...")
		cmd.Dir, cmd.Env = dir, env.environ
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "go generate: %s", b)
		cmd = exec.Command("go", "build", "./...")
		cmd.Dir, cmd.Env = dir, env.environ
		b, err = cmd.CombinedOutput()
		require.NoError(t, err, "go build: %s", b)
	}
	goGenerate()
	out := filepath.Join(dir, "svc", "svc_sentinel.go")
	assert.Contains(t, read(t, out), "func (s *Svc) Put(")

	// The annotated method goes: its wrapper goes with it.
	write(t, filepath.Join(dir, "svc", "svc.go"), svcSrc)
	goGenerate()
	assert.NotContains(t, read(t, out), "Put(")

	// The last directive goes: the output is emptied, and builds.
	write(t, filepath.Join(dir, "svc", "svc.go"), "package svc\n\nimport \"context\"\n\ntype Svc struct{}\n\nfunc (s *Svc) Get(ctx context.Context) (int, error) { return 1, nil }\n")
	goGenerate()
	assert.True(t, generator.IsStub([]byte(read(t, out))))
	goGenerate() // and again, with the stub in place

	_, err = os.Stat(out)
	require.NoError(t, err)
}
