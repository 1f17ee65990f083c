package transport_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// A service starts its command center; the dashboard (here, a plain HTTP
// client in its place) sets a flow rule, which is in force and written to
// the rule file.
func ExampleStart() {
	dir, _ := os.MkdirTemp("", "rules")
	defer os.RemoveAll(dir)
	defer flow.LoadRules(nil)

	srv, err := transport.Start(context.Background(), transport.Config{
		App:  "orders",
		Addr: "127.0.0.1:0", // a free port; a real service names its own, 8719 in Java
		// Dashboard: "sentinel-dashboard:8858", // where heartbeats go
		RuleFiles: []dashboard.RuleFile{{Kind: datasource.Flow, Path: filepath.Join(dir, "flow.json")}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	resp, err := http.PostForm("http://"+srv.Addr().String()+"/setRules", url.Values{
		"type": {"flow"},
		"data": {`[{"resource":"getOrder","grade":1,"count":20}]`},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(answer))
	fmt.Println(flow.Rules()[0].Resource, flow.Rules()[0].Count)
	// Output:
	// success
	// getOrder 20
}

// A service registers with a sentinel-dashboard and takes its rules.
func ExampleConfig() {
	ctx := context.Background()
	srv, err := transport.Start(ctx, transport.Config{
		App:       "orders",
		Addr:      "10.0.0.7:8719", // where the dashboard calls back; never defaulted to every interface
		Dashboard: "sentinel-dashboard:8858",
		RuleFiles: []dashboard.RuleFile{{Kind: datasource.Flow, Path: "rules/flow.json"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
}
