package etcd_test

import (
	"context"
	"log"
	"net/http"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/etcd"
)

// Each instance of a fleet watches one key, and its dashboard's edits are
// written back to it.
func Example() {
	ctx, mux := context.Background(), http.NewServeMux()

	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}})
	if err != nil {
		log.Fatal(err)
	}
	src, err := etcd.Watch(ctx, cli, "/orders/sentinel/flow", datasource.Flow)
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	mux.Handle("/sentinel/", http.StripPrefix("/sentinel", dashboard.New(
		dashboard.WithSource(src),
		dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: datasource.Flow, Save: src.Save}),
	)))
}
