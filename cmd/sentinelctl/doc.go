// Sentinelctl operates a fleet of instances protected by sentinelgen's
// runtime. It is a command of its own, apart from sentinelgen, because it
// carries the clients of the servers a fleet shares (etcd, Redis): a
// module that adds sentinelgen as a tool gets none of them.
//
// Run it from a module that requires github.com/sentinelgen/sentinelgen:
//
//	go run github.com/sentinelgen/sentinelgen/cmd/sentinelctl rules push ...
//
// or install it: go install github.com/sentinelgen/sentinelgen/cmd/sentinelctl@latest.
//
// # Pushing rules to a fleet
//
//	sentinelctl rules push -etcd ADDR -key K [flags] FILE
//	sentinelctl rules push -redis ADDR -key K -channel C [flags] FILE
//
// checks FILE exactly as `sentinelgen rules check` does (the same report,
// and its flags -kind, -pkg, -also, -tags and -strict), and only when it
// passes publishes it: to an etcd key (a put), or to a Redis key and
// channel (SET and PUBLISH in one MULTI, as Java's
// sentinel-datasource-redis expects). A document the instances would
// refuse never reaches them, nor, with -pkg, one with a rule for a
// resource the code does not declare, nor, with -strict, one with a
// warning; what is published is the bytes checked. -kind names the
// document's kind when its file name and fields do not tell; -timeout
// bounds the wait for the server (10 s). Instances follow the key with
// packages runtime/datasource/etcd and runtime/datasource/redis. Exit
// status 1 when the file fails the check or the server fails, 2 for a
// usage error:
//
//	sentinelctl rules push -etcd 10.0.0.5:2379 -key /sentinel/orders/flow rules/flow.json
//	sentinelctl rules push -redis 10.0.0.6:6379 -key orders:flow -channel orders:flow:channel -strict rules/flow.json
package main
