// Package redis keeps Sentinel rules in force from Redis, as Java's
// sentinel-datasource-redis does: a rule key holds the document, and every
// message on a channel is the new document. Its name is go-redis's;
// import it under another:
//
//	import sentinelredis "github.com/sentinelgen/sentinelgen/runtime/datasource/redis"
//
//	rdb := redis.NewClient(&redis.Options{Addr: "10.0.0.6:6379"})
//	src, err := sentinelredis.Watch(ctx, rdb, "sentinel:orders:flow", "sentinel:orders:flow:channel", datasource.Flow)
//	if err != nil {
//		return err // a nil client or kind, an empty key or channel
//	}
//	defer src.Close()
//
// The document is what a rule file holds: one kind (a JSON array, Java
// Sentinel's format) or every kind in one (datasource.Combined). Writers
// set the key and publish the same document on the channel in one
// MULTI/EXEC (Publish; `sentinelctl rules push -redis` does it for a rule
// file, after checking that it loads).
//
// # Reading and listening
//
// Watch subscribes to the channel and, once the subscription is
// confirmed, reads the key, so a document published in between is not
// missed; the first read is over when Watch returns (src.LastError() is
// nil when its rules are in force). Every message is then loaded as a
// file's would be, all or nothing. From a Publish to the last source
// having the document in force, BenchmarkPushToLastOfN measures
// 0.06-0.10 ms for one source, 0.10 ms for three and 0.21 ms for ten (two
// runs; one redis-server and every source on one shared 2-core machine).
//
// The rules in force are never cleared by accident: a malformed message
// or value, one a rule package refuses, an empty one, one over the size
// cap (4 MiB by default, WithMaxSize) and a deleted key are refused, logged
// and reported by LastError and Status; the rules stay. A document of []
// clears them.
//
// The key is read bounded: one MULTI/EXEC asks for its first cap+1 bytes
// and its length, so a value over the cap is refused without Redis sending
// it (an 8 MiB value costs the source a few bytes, after every
// reconnection), and the refusal names the key and its size. A message
// over the cap is refused naming the channel; go-redis has read it by
// then, and Redis itself disconnects a subscriber sent more than its
// client-output-buffer-limit for pubsub (32 MiB by default), after which
// the key is read again, bounded.
//
// # Outages
//
// Pub/sub keeps nothing for a subscriber that is away: messages published
// while the connection is down are lost. So after every reconnection the
// source reads the key again, and ends on the last document published. A
// connection that goes silent without being closed (a crashed host, a
// dropped route) is found by a ping after WithHealthCheck (5 s by default)
// of silence, and replaced when that ping goes unanswered for WithTimeout
// (5 s by default). While Redis cannot be reached the rules in force stay, and the
// source tries again every WithRetryInterval.
//
// # Writing back
//
// Save writes the rules in force back (Publish), for the dashboard's rule
// updates (dashboard.RuleFile's Save). Redis has no revision to compare:
// the last writer wins, as in Java; use etcd where two editors must not
// overwrite each other.
//
// # Status
//
// Status().Path is "redis:" and the key; Watching is "redis subscribe",
// "redis unreachable; retrying" or "closed". The metrics collector and the
// dashboard take a Source as they take a rule file's (WithSource).
package redis
