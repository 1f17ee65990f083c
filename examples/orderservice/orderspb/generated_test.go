package orderspb_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protocVersion matches the line where the generated files name the protoc
// that wrote them: a different protoc release writes the same code.
var protocVersion = regexp.MustCompile(`(?m)^// (\t| - )protoc +v\S+$`)

// TestGeneratedCodeMatchesTheProto runs protoc with the plugins pinned in
// go.mod on orders.proto and compares its output with the committed files.
func TestGeneratedCodeMatchesTheProto(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	require.NoError(t, err, "protoc is not installed: run .ci/protoc.sh (as root), or apt-get install protobuf-compiler")
	plugin := func(name string) string {
		out, err := exec.Command("go", "tool", "-n", name).Output()
		require.NoError(t, err, "go tool -n %s", name)
		return strings.TrimSpace(string(out))
	}
	dir := t.TempDir()
	cmd := exec.Command(protoc,
		"--plugin=protoc-gen-go="+plugin("protoc-gen-go"),
		"--plugin=protoc-gen-go-grpc="+plugin("protoc-gen-go-grpc"),
		"--go_out="+dir, "--go_opt=paths=source_relative",
		"--go-grpc_out="+dir, "--go-grpc_opt=paths=source_relative",
		"orders.proto")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "protoc: %s", out)

	for _, name := range []string{"orders.pb.go", "orders_grpc.pb.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		got, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.Equal(t, normalize(want), normalize(got),
			"%s is stale: run go generate ./examples/orderservice/orderspb", name)
	}
}

func normalize(b []byte) string {
	return string(protocVersion.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("// protoc")))
}
