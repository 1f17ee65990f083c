//go:build long

package generator

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// generating lets one long module generate at a time, while the others
// build and vet.
var generating sync.Mutex

// longSystems are the systems each long module is generated, built and
// vetted for; the first is the one CI's host is.
var longSystems = []string{"linux", "windows", "darwin"}

// TestRealCodeLong is TestRealCode over systems packages, whose files
// differ per system: each is generated as linux, windows and darwin load
// it (as CI's sentinelgen -check does), the outputs a file gets in
// several systems must be the same, and the result is built and vetted
// for each. Run it with -tags long; CI does (.ci/test). The figures it
// logs (directives, seconds, peak resident set size of a run) are those
// docs/performance.md gives.
//
// The packages: etcd's client/pkg (fileutil: _linux, _darwin, _bsd,
// _windows, _unix); go-systemd's activation, daemon, journal, unit and
// util (_unix, _windows, _other, _stub, cgo); x/sys's cpu (a file per
// architecture and system), execabs and windows/registry and svc/...
// (windows only); x/net's ipv4, ipv6 and internal/socket (zsys_ and
// sys_ files per system, _stub for the rest).
func TestRealCodeLong(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		path string
		pkgs []string // package directories; none: every package
	}{
		{"go.etcd.io/etcd/client/pkg/v3", nil},
		{"github.com/coreos/go-systemd/v22", []string{"activation", "daemon", "journal", "unit", "util"}},
		{"golang.org/x/sys", []string{"cpu", "execabs", "windows/registry", "windows/svc", "windows/svc/eventlog", "windows/svc/mgr"}},
		{"golang.org/x/net", []string{"ipv4", "ipv6", "internal/socket"}},
	} {
		t.Run(m.path, func(t *testing.T) {
			t.Parallel()
			generateEverySystem(t, m.path, m.pkgs)
		})
	}
}

// generateEverySystem is TestRealCodeLong on one module of the module
// cache.
func generateEverySystem(t *testing.T, mod string, pkgs []string) {
	dir := copyModule(t, mod)
	patterns := []string{"./..."}
	if len(pkgs) > 0 {
		patterns = nil
		for _, p := range pkgs {
			patterns = append(patterns, "./"+p)
		}
	}
	ans := &answers{renamed: map[string]bool{}, exclude: map[string][]string{}, skip: map[string]bool{}}
	results := map[string]*Result{}
	var directives int
	var took time.Duration
	var peak uint64
	for round := 0; ; round++ {
		directives = annotateModule(t, dir, pkgs, ans)
		var errs []string
		took, peak = 0, 0
		for _, goos := range longSystems {
			cfg := Config{Dir: dir, Patterns: builtFor(t, dir, goos, patterns), Env: append(moduleEnv(), "GOOS="+goos)}
			// One run at a time, so that the peak is this run's.
			generating.Lock()
			resetPeakRSS()
			res, err := Generate(cfg)
			rss, rssOK := peakRSS()
			generating.Unlock()
			require.NoError(t, err)
			took += res.Timing.Load + res.Timing.Generate
			if rssOK {
				peak = max(peak, rss)
			}
			results[goos] = res
			t.Logf("round %d, GOOS=%s: load %v, generate %v", round, goos, res.Timing.Load, res.Timing.Generate)
			for _, e := range res.Errors() {
				ans.answer(t, e)
				errs = appendNew(errs, e.Error())
			}
		}
		if len(errs) == 0 {
			break
		}
		require.Less(t, round, 3, "still refused after the refusals were answered:\n%s", strings.Join(errs, "\n"))
		t.Logf("%d refusals answered", len(errs))
	}

	// Each system's outputs are written; a file that several systems
	// load must get the same output from each, or sentinelgen -check
	// would fail in all but one.
	written := map[string]string{} // path -> the system that wrote it
	content := map[string][]byte{}
	for _, goos := range longSystems {
		for _, p := range results[goos].Packages {
			for _, f := range p.Files {
				if first, ok := written[f.Path]; ok {
					require.Equal(t, string(content[f.Path]), string(f.Content), "%s: GOOS=%s and GOOS=%s generate it differently", f.Path, first, goos)
					continue
				}
				written[f.Path], content[f.Path] = goos, f.Content
				writeFile(t, f.Path, f.Content)
			}
		}
	}
	require.NotEmpty(t, written)

	start := time.Now()
	notVetted := map[string][]string{}
	for _, goos := range longSystems {
		built := builtFor(t, dir, goos, patterns)
		goCmd := func(args ...string) ([]byte, error) {
			cmd := exec.Command("go", args...)
			cmd.Dir, cmd.Env = dir, append(moduleEnv(), "GOOS="+goos)
			return cmd.CombinedOutput()
		}
		out, err := goCmd(append([]string{"build"}, built...)...)
		require.NoError(t, err, "GOOS=%s go build:\n%s", goos, out)
		if out, err = goCmd(append([]string{"vet"}, built...)...); err != nil { // vet builds the tests too
			// What the untouched tree does not vet either (go-systemd's
			// journal_test.go calls a function of journal_unix.go on
			// windows) is only built.
			notVetted[goos] = untouchedVetFailures(t, copyModule(t, mod), goos, built)
			require.NotEmpty(t, notVetted[goos], "GOOS=%s go vet:\n%s", goos, out)
			out, err = goCmd(append([]string{"vet"}, without(built, notVetted[goos])...)...)
			require.NoError(t, err, "GOOS=%s go vet:\n%s", goos, out)
		}
	}
	perSystem := map[string]int{}
	for _, goos := range written {
		perSystem[goos]++
	}
	t.Logf("FIGURES %s: %d directives, %d outputs (first written by %v); generating for 3 systems %.2f s, peak RSS %d MB; build and vet for 3 systems %.1f s; not vetted, as untouched: %v",
		mod, directives, len(written), perSystem, took.Seconds(), peak>>20, time.Since(start).Seconds(), notVetted)
}

// builtFor lists, of the packages patterns name in module dir, those
// with files in goos's build (x/sys's windows/registry has none on linux),
// as patterns.
func builtFor(t *testing.T, dir, goos string, patterns []string) []string {
	cmd := exec.Command("go", append([]string{"list", "-e", "-f", "{{if .GoFiles}}{{.Dir}}{{end}}"}, patterns...)...)
	cmd.Dir, cmd.Env = dir, append(moduleEnv(), "GOOS="+goos)
	out, err := cmd.Output()
	require.NoError(t, err, "GOOS=%s go list", goos)
	var built []string
	for _, d := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(dir, d)
		require.NoError(t, err)
		built = append(built, "./"+filepath.ToSlash(rel))
	}
	require.NotEmpty(t, built, "GOOS=%s builds none of %v", goos, patterns)
	return built
}

// untouchedVetFailures are the packages (as patterns) go vet fails on in
// the untouched copy at dir, built for goos: go vet names each failing
// package ("# path"), and is run again without them until it passes.
func untouchedVetFailures(t *testing.T, dir, goos string, pkgs []string) []string {
	mod := modulePath(t, dir)
	var failing []string
	for range 5 {
		cmd := exec.Command("go", append([]string{"vet"}, without(pkgs, failing)...)...)
		cmd.Dir, cmd.Env = dir, append(moduleEnv(), "GOOS="+goos)
		out, err := cmd.CombinedOutput()
		if err == nil {
			return failing
		}
		before := len(failing)
		for _, line := range strings.Split(string(out), "\n") {
			if path, ok := strings.CutPrefix(line, "# "+mod); ok && !strings.Contains(path, " ") {
				failing = appendNew(failing, "."+path)
			}
		}
		require.Greater(t, len(failing), before, "GOOS=%s go vet of the untouched copy:\n%s", goos, out)
	}
	t.Fatalf("GOOS=%s: go vet of the untouched copy still fails without %v", goos, failing)
	return nil
}

// modulePath is the path of the module at dir.
func modulePath(t *testing.T, dir string) string {
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir, cmd.Env = dir, moduleEnv()
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// without is list less the elements of drop.
func without(list, drop []string) []string {
	var out []string
	for _, s := range list {
		if !contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}
