package file_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

func Example() {
	dir, _ := os.MkdirTemp("", "rules")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "flow.json")
	_ = os.WriteFile(path, []byte(`[{"resource": "getOrder", "grade": 1, "count": 20}]`), 0o644)

	src, err := file.Watch(context.Background(), path, datasource.Flow)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	fmt.Println("loaded:", src.LastError() == nil, "rules:", src.Status().Rules)
	fmt.Println(flow.Rules()[0].Resource, flow.Rules()[0].Count)

	_ = flow.LoadRules(nil)
	// Output:
	// loaded: true rules: 1
	// getOrder 20
}
