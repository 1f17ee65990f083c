// Package compare holds no code: its tests are the side-by-side
// benchmarks of the runtime and its adapters against the allocation floor
// and, when built with the sentinelgolang tag, against
// alibaba/sentinel-golang and its adapters for the same frameworks, in one
// test binary, so that the figures are comparable. It is a module of its
// own so that no user of sentinelgen ever gets sentinel-golang; bench/compare.sh
// runs it and prints the table:
//
//	SENTINEL_GOLANG=path/to/sentinel-golang bash bench/compare.sh
//
// Every case is named path=<what is measured>/impl=<whose>, impl being
// "ours", "theirs" (sentinel-golang) or "bare" (the framework without a
// protector), so that `benchstat -col /impl` prints them side by side:
//
//   - Floor: allocating one 128-byte object, the cost of a one-allocation
//     Entry+Exit's entry;
//   - Core: Entry+Exit of a resource with one admitting flow rule and one
//     closed breaker (admitted), with the flow rule alone (admitted-flow),
//     and Entry of a resource whose flow rule refuses every call (refused),
//     serially and, but for admitted-flow, under b.RunParallel;
//   - Resources: the admitted call round robin over 1 and 6,000 resources,
//     each with its rules;
//   - Gin, Echo: one request through the framework, bare, admitted and
//     refused with the default answer;
//   - NetHTTP (ours only: sentinel-golang has no net/http middleware) and
//     GRPCUnary (the unary server interceptor alone, with grpc-go's reading
//     of the status it returns).
//
// Each case also reports cpu-ns/op, the process's CPU time per call (GC
// included): on a shared machine, wall time counts the waits for a core
// too. sentinel-golang's background goroutines (its statistics and system
// collectors) run in the same process, so with it our CPU figures include a
// little of their work.
//
// The sentinelgolang-tagged file needs sentinel-golang's modules, which
// compare.sh adds to a copy of this module from a local checkout: go mod
// tidy in this directory would look for them too, and fail.
package compare
