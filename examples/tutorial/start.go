package tutorial

import (
	"context"
	"fmt"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
)

// Serve is a service's start-up: it loads and watches rules/flow.json,
// refuses to start without the rules, then hands each of ids to GetOrder
// and its answer to answer while ctx lasts.
func Serve(ctx context.Context, svc *OrderService, ids []int64, answer func(*Order, error)) error {
	src, err := file.Watch(ctx, "rules/flow.json", datasource.Flow)
	if err != nil {
		return err // a nil kind, an empty path, a directory
	}
	defer src.Close()
	if err := src.LastError(); err != nil {
		// Missing, malformed or refused: no flow rules are in force.
		return fmt.Errorf("flow rules: %w", err)
	}
	for _, id := range ids {
		answer(svc.GetOrder(ctx, id))
	}
	return nil
}
