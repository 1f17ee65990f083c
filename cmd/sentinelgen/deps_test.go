package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A module that adds sentinelgen as a tool (go get -tool) gets in its
// go.mod the modules of the packages sentinelgen builds from, and no
// others: none of the clients of a fleet's servers, which sentinelctl
// carries.
func TestGeneratorLinksNoFleetClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "golang.org/x/tools/go/packages", "the list is the generator's")
	for _, dep := range deps {
		for _, fleet := range []string{"go.etcd.io/", "github.com/redis/go-redis/", "google.golang.org/grpc", "go.uber.org/zap", "github.com/grpc-ecosystem/"} {
			assert.False(t, strings.HasPrefix(dep, fleet), "sentinelgen imports %s", dep)
		}
	}
}
