// Package compare holds no code: its tests are the side-by-side
// benchmarks of the runtime and its adapters against the allocation floor,
// each framework with a middleware that does nothing and, when built with
// the sentinelgolang tag, against alibaba/sentinel-golang and its adapter
// for the same framework, so that the figures are comparable. It is a
// module of its own so that no user of sentinelgen ever gets
// sentinel-golang; bench/compare.sh runs it and prints the table:
//
//	git clone https://github.com/alibaba/sentinel-golang /tmp/sentinel-golang
//	SENTINEL_GOLANG=/tmp/sentinel-golang bash bench/compare.sh
//
// Every case is named path=<what is measured>/impl=<whose>, impl being
// "ours" (our Entry, or our adapter), "enter" (our Enter, which returns a
// Ticket and allocates nothing: the core and resources cases only),
// "theirs" (sentinel-golang), "bare" (the framework with a no-op
// middleware) or "floor", so that `benchstat -col /impl` prints them side
// by side, and ./table prints medians, what each adapter adds over bare
// and the ratios as a Markdown table:
//
//   - Floor: allocating one 128-byte object, the cost of a one-allocation
//     Entry+Exit's entry;
//   - Core: Entry+Exit (and Enter+Ticket.Exit) of a resource with one admitting flow rule and one
//     closed breaker (admitted), with the flow rule alone (admitted-flow),
//     and Entry of a resource whose flow rule refuses every call (refused),
//     serially and, but for admitted-flow, under b.RunParallel;
//   - Resources: the admitted call round robin over 1 and 6,000 resources,
//     each with its rules;
//   - Gin, Echo, Chi, GorillaMux, NetHTTP: one request through the
//     framework, bare, and through each adapter admitted and refused with
//     its default answer (sentinel-golang has no adapter for chi,
//     gorilla/mux or net/http);
//   - GRPCUnary: the unary server interceptor alone, with grpc-go's
//     reading of the status it returns.
//
// The frameworks whose dependencies are heavy (fiber, go-zero, GoFrame,
// Hertz, Iris, Kitex, Kratos) are not in this module, so that its CI stays
// quick and its go.sum small: their cases are in testdata/frameworks,
// which compare.sh builds, one test binary per framework, in a temporary
// module that requires our adapter for it (and so the framework at the
// versions that adapter's users get) with this package's shared files
// (main_test.go, protector_test.go, harness_test.go, ours_test.go,
// sentinelgolang_test.go). CHECK=1 bash bench/compare.sh vets and runs
// them once.
//
// Each case also reports cpu-ns/op, the process's CPU time per call (GC
// included): on a shared machine, wall time counts the waits for a core
// too. sentinel-golang's background goroutines (its statistics and system
// collectors) run in the same process, so with it our CPU figures include a
// little of their work.
//
// The sentinelgolang-tagged files need sentinel-golang's modules, which
// compare.sh adds to a copy of this module from a local checkout: go mod
// tidy in this directory would look for them too, and fail (go mod tidy -e
// does what tidy would without them).
package compare
