// Package wrappertest holds annotated methods and decorated interfaces
// and their committed generated wrappers, for tests of how wrappers behave
// against the real runtime (Java's SentinelAnnotationIntegrationTest,
// ported) and for the benchmarks of a wrapper and of a decorated method
// against the Entry/Exit code each expands to. generator's
// TestCommittedWrappersAreCurrent regenerates the committed outputs and
// fails when one is stale:
//
//	go run ../../../cmd/sentinelgen .
package wrappertest
