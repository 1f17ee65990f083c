package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// README's tutorial works as pasted: its Go snippets are whole files
// (package clause, imports, the handler they use) that, written into a
// new module that requires this repository and has sentinelgen as its
// tool (step 1), generate (go generate, step 3) and build; and that
// module's go.mod holds nothing the tutorial does not use.
func TestReadmeTutorialSnippetsBuildAsPasted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module and runs the generator")
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, tutorial, ok := strings.Cut(string(readme), "\n## Five-minute tutorial\n")
	require.True(t, ok, "README has its tutorial")
	tutorial, _, _ = strings.Cut(tutorial, "\n## ")
	snippets := goSnippets(tutorial)
	require.GreaterOrEqual(t, len(snippets), 2)

	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/orders\n\ngo 1.26\n\ntool github.com/sentinelgen/sentinelgen/cmd/sentinelgen\n\n" +
			"require github.com/sentinelgen/sentinelgen v0.0.0\n\nreplace github.com/sentinelgen/sentinelgen => " + repo + "\n",
		"go.sum": string(sum),
	}
	for i, s := range snippets {
		assert.True(t, strings.HasPrefix(s.text, "package "), "README.md tutorial snippet %d (line %d) is a whole file, from its package clause:\n%s", i+1, s.line, s.text)
		files[filepath.Join("orders", "snippet"+string(rune('a'+i))+".go")] = s.text
	}
	for name, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	// The repository's requirements come from the module cache, as the
	// rest of the tests have them: no network.
	env := append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOWORK=off")
	for _, args := range [][]string{{"mod", "tidy"}, {"generate", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s in a module of README's tutorial snippets:\n%s", strings.Join(args, " "), out)
	}
	// Step 1 adds the generator as a tool: it brings no client of a
	// fleet's servers (sentinelctl carries those).
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	for _, fleet := range []string{"go.etcd.io/", "github.com/redis/go-redis", "google.golang.org/grpc", "go.uber.org/zap", "github.com/grpc-ecosystem/"} {
		assert.NotContains(t, string(gomod), fleet, "the tutorial's go.mod")
	}
	generated, err := filepath.Glob(filepath.Join(dir, "orders", "*_sentinel.go"))
	require.NoError(t, err)
	assert.Len(t, generated, 1, "go generate wrote the wrapper GetOrder, which Serve calls")
}
