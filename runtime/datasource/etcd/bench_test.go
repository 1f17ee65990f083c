package etcd_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/etcd"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

// BenchmarkPushToLastOfN is the time from a put of a new document to the
// last of N sources (each with its own client, as N instances) having it
// in force.
func BenchmarkPushToLastOfN(b *testing.B) {
	srv := testserver.StartEtcd(b)
	version := 0
	for _, n := range []int{1, 3, 10} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			w := srv.Client(b)
			defer w.Close()
			applied := make(chan struct{}, n)
			for range n {
				c := srv.Client(b)
				defer c.Close()
				src, err := etcd.Watch(context.Background(), c, key, fakerules.New("flow").Kind(),
					etcd.WithSubscriber(func(ev datasource.Event) {
						if ev.Loaded {
							applied <- struct{}{}
						}
					}))
				require.NoError(b, err)
				defer src.Close()
			}
			for len(applied) > 0 {
				<-applied // the start-up reads
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				version++ // never a document a source has seen: it would not load again
				put(b, w, key, fakerules.Document("r"+strconv.Itoa(version)))
				for range n {
					<-applied
				}
			}
		})
	}
}
