// Package wrappertest holds annotated methods and their committed
// generated wrappers, for tests of how wrappers behave against the real
// runtime (Java's SentinelAnnotationIntegrationTest, ported) and for the
// benchmark of a wrapper against the Entry/Exit code it expands to.
// generator's TestCommittedWrappersAreCurrent regenerates
// service_sentinel.go and fails when it is stale:
//
//	go run ../../../cmd/sentinelgen .
package wrappertest
