package sentinelkratos_test

import (
	"context"

	"google.golang.org/grpc/metadata"
)

func metadataContext(ctx context.Context, kv ...string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, kv...)
}
