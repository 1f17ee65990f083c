package sentinelgrpc

import (
	"context"
	"strings"

	"google.golang.org/grpc/metadata"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// MaxOriginLen bounds an origin in bytes: the runtime's own cap
// (runtime.MaxOriginBytes). Origins come from metadata the caller sets,
// and each distinct origin gets statistics of its own on every resource: a
// longer one is cut to this length.
const MaxOriginLen = runtime.MaxOriginBytes

// OriginFromMetadata returns an origin parser that reads the first value of
// the named metadata key of the incoming call:
//
//	sentinelgrpc.WithOriginParser(sentinelgrpc.OriginFromMetadata("s-user"))
//
// Keys are case-insensitive, as in gRPC metadata. The value is what the
// client says: take it from a key your gateway or mesh sets.
func OriginFromMetadata(key string) func(ctx context.Context, fullMethod string) string {
	key = strings.ToLower(key)
	return func(ctx context.Context, _ string) string {
		if v := metadata.ValueFromIncomingContext(ctx, key); len(v) > 0 {
			return v[0]
		}
		return ""
	}
}

// sanitizeOrigin bounds an origin a caller chose: at most MaxOriginLen
// bytes, and every byte outside printable ASCII (what gRPC allows in a
// text metadata value) replaced by '?', so that a binary ("-bin") key or a
// custom parser cannot put control bytes in logs and metrics labels. An
// origin that needs no change is returned as is, without allocating.
func sanitizeOrigin(s string) string {
	if len(s) > MaxOriginLen {
		s = strings.Clone(s[:MaxOriginLen]) // a slice would keep the caller's whole value alive
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}
