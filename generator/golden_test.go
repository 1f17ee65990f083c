package generator

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in ../testdata")

// A golden case is ../testdata/<name>.txtar: the input package's files,
// then either its expected outputs (want/<file>_sentinel.go) or, for a
// case named errors_*, an "errors" file with the expected problems, one
// file:line:col: message a line, paths relative to the case directory. An input may itself be a
// previous output (a stale *_sentinel.go), which generation overwrites.
type goldenCase struct {
	name    string
	path    string
	archive *txtar.Archive
	inputs  []txtar.File
	outputs map[string]string
	errors  string
	hasErrs bool
}

func readCases(t *testing.T) []*goldenCase {
	paths, err := filepath.Glob("../testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var cases []*goldenCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		require.NoError(t, err)
		c := &goldenCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), path: p, archive: a, outputs: map[string]string{}}
		for _, f := range a.Files {
			switch {
			case f.Name == "errors":
				c.errors, c.hasErrs = string(f.Data), true
			case strings.HasPrefix(f.Name, "want/"):
				c.outputs[strings.TrimPrefix(f.Name, "want/")] = string(f.Data)
			default:
				c.inputs = append(c.inputs, f)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// TestGolden generates every case in one run, compares with the golden
// files, then builds and vets all outputs in one module, and checks that
// regenerating changes nothing.
func TestGolden(t *testing.T) {
	t.Parallel()
	cases := readCases(t)
	mod := caseModule(t)
	var patterns []string
	for _, c := range cases {
		for _, f := range c.inputs {
			writeFile(t, filepath.Join(mod, c.name, f.Name), f.Data)
		}
		patterns = append(patterns, "./"+c.name)
	}
	res, err := Generate(Config{Dir: mod, Patterns: patterns, Env: moduleEnv()})
	require.NoError(t, err)
	t.Logf("load %v, generate %v", res.Timing.Load, res.Timing.Generate)
	byPath := map[string]*Package{}
	for _, p := range res.Packages {
		byPath[p.PkgPath] = p
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := byPath["cases/"+c.name]
			require.NotNil(t, p, "package not loaded")
			dir := filepath.Join(mod, c.name) + string(filepath.Separator)
			var gotErrs string
			for _, e := range p.Errors {
				gotErrs += strings.TrimPrefix(e.Error(), dir) + "\n"
			}
			got := map[string]string{}
			for _, f := range p.Files {
				got[strings.TrimPrefix(f.Path, dir)] = string(f.Content)
				writeFile(t, f.Path, f.Content)
			}
			if *update {
				c.rewrite(t, got, gotErrs)
				return
			}
			// A case is named for what it shows, so that an update cannot
			// quietly turn an output case into a refusal.
			require.Equal(t, strings.HasPrefix(c.name, "errors_"), c.hasErrs, "a case has errors exactly when its name starts with errors_")
			if c.hasErrs {
				assert.Equal(t, c.errors, gotErrs)
			} else {
				assert.Empty(t, gotErrs)
			}
			assert.Equal(t, sortedKeys(c.outputs), sortedKeys(got), "generated files")
			for name, want := range c.outputs {
				assert.Equal(t, want, got[name], name)
			}
		})
	}

	t.Run("outputs build and vet clean", func(t *testing.T) {
		// Error cases may hold code that does not compile; they have no
		// output to vet.
		args := []string{"vet"}
		for _, c := range cases {
			if !c.hasErrs {
				args = append(args, "./"+c.name+"/...")
			}
		}
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = mod, moduleEnv()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	})

	t.Run("outputs build where their sources do not", func(t *testing.T) {
		// The constraints copied from cgo and +build sources leave the
		// outputs out of the builds that leave the sources out.
		for _, build := range []struct {
			env  []string
			args []string
		}{
			{[]string{"CGO_ENABLED=0"}, []string{"build", "./cgo"}},
			{nil, []string{"build", "-tags", "sentinelgen_off", "./plus_build"}},
			{[]string{"GOOS=windows"}, []string{"vet", "./other_builds"}},
			{[]string{"GOOS=windows"}, []string{"vet", "./decorate"}},
		} {
			cmd := exec.Command("go", build.args...)
			cmd.Dir, cmd.Env = mod, append(moduleEnv(), build.env...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%v go %v: %s", build.env, build.args, out)
		}
	})

	t.Run("outputs build and vet in every configuration their files name", func(t *testing.T) {
		buildEveryConfig(t, mod, cases)
	})

	t.Run("decorated values run under -race", func(t *testing.T) {
		cmd := exec.Command("go", "test", "-race", "-count=1", "./decorate")
		cmd.Dir, cmd.Env = mod, moduleEnv()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	})

	t.Run("regenerating changes nothing", func(t *testing.T) {
		again, err := Generate(Config{Dir: mod, Patterns: patterns, Env: moduleEnv()})
		require.NoError(t, err)
		for i, p := range again.Packages {
			assert.Empty(t, p.Orphans, p.PkgPath)
			require.Len(t, p.Files, len(res.Packages[i].Files), p.PkgPath)
			for j, f := range p.Files {
				assert.Equal(t, string(res.Packages[i].Files[j].Content), string(f.Content), f.Path)
			}
		}
	})
}

func (c *goldenCase) rewrite(t *testing.T, got map[string]string, errs string) {
	a := &txtar.Archive{Comment: c.archive.Comment, Files: append([]txtar.File(nil), c.inputs...)}
	if errs != "" {
		a.Files = append(a.Files, txtar.File{Name: "errors", Data: []byte(errs)})
	}
	for _, name := range sortedKeys(got) {
		a.Files = append(a.Files, txtar.File{Name: "want/" + name, Data: []byte(got[name])})
	}
	require.NoError(t, os.WriteFile(c.path, txtar.Format(a), 0o644))
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// caseModule makes a module "cases" whose packages import this repository
// through a replace directive, so that generated code builds against the
// runtime being tested.
func caseModule(t testing.TB) string {
	t.Helper()
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	dir := t.TempDir()
	gomod := "module cases\n\ngo 1.26\n\nrequire github.com/sentinelgen/sentinelgen v0.0.0\n\nreplace github.com/sentinelgen/sentinelgen => " + repo + "\n"
	writeFile(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, "go.sum"), sum)
	return dir
}

// moduleEnv lets go commands in a case module resolve the replaced module's
// requirements from the module cache without touching the network.
func moduleEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOWORK=off")
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}
