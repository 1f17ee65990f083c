// Package testserver starts the real servers that tests run against —
// redis-server and etcd, from Debian's packages (.ci/redis.sh,
// .ci/etcd.sh) — on free loopback ports, each test its own, and kills them
// when the test ends. A missing binary fails the test: nothing is skipped.
//
// Proxy stands between a client and a server, so a test can cut one
// client off while others keep writing (an outage seen from one instance).
package testserver
