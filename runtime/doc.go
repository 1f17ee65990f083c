// Package runtime is sentinelgen's flow-control runtime: a Go
// reimplementation of Alibaba Sentinel's slot chain, with Java Sentinel's
// arithmetic, that generated wrappers and hand-written code call.
//
// # Protecting a call
//
//	e, b := runtime.Entry(ctx, "getOrder")
//	if b != nil {
//		return nil, b // refused: b says by which rule; errors.Is(b, runtime.ErrBlocked)
//	}
//	defer e.Exit()
//	order, err := s.find(e.Context(), id) // nested calls see this entry as their parent
//	e.SetError(err)                        // feeds error-ratio and error-count breakers
//
// sentinelgen writes this code for methods annotated with
// //sentinel:resource; see the cmd/sentinelgen documentation.
//
// A Resource declared with Declare (generated code does so at init) can be
// entered through its handle, which spares the name lookup:
//
//	var getOrder = runtime.Declare(runtime.ResourceSpec{Name: "getOrder"})
//	e, b := getOrder.Entry(ctx)
//
// # Calls that allocate nothing: Enter and Ticket
//
// Entry allocates the call's entry, 128 bytes, and never reuses it, so
// that a stray Exit of a *SentinelEntry can only ever touch its own call.
// Enter opens the same call, with the same checks and counts, and returns
// a Ticket, a value: the entry behind it is reused once the call exits,
// so a call allocates nothing.
//
//	t, b := getOrder.Enter(ctx)
//	if b != nil {
//		return nil, b
//	}
//	defer t.Exit()
//	order, err := s.find(id)
//	t.SetError(err)
//
// The rule for tickets: exit each once, and do not use a ticket after its
// Exit. Breaking it is harmless: a ticket carries the generation of its
// call, and every method of a ticket whose call has exited (a second Exit,
// an Exit of a copy, an Exit from another goroutine that lost the race,
// an Exit long after the entry began serving another call) does nothing.
// It can never exit, count on or record an error on another call, so no
// count of calls in flight leaks or goes negative. SetError, like
// SentinelEntry's, must not race with the ticket's own Exit.
//
// Ticket.Context hands out the entry, as SentinelEntry.Context does, for
// nested calls to link to; since such a context may outlive the call, an
// entry whose context was taken is never reused, and the call costs the
// allocation Enter spared it. A call entered under a parent entry, or on a
// resource keeping a response-time histogram, has an entry of its own too.
// Generated wrappers open their calls with Enter when the method takes no
// context.Context, and with Entry when it does (they hand the entry's
// context to the method).
//
// # Contexts and the node tree
//
// Sentinel's context travels in a context.Context. EnterContext names an
// entrance and the caller's origin (Java's ContextUtil.enter); calls outside
// any entrance belong to "sentinel_default_context". Every call counts on:
//
//   - its DefaultNode: the resource within its context, linked under the
//     parent entry's node or the context's EntranceNode (Tree shows it);
//   - the resource's ClusterNode, shared by all contexts;
//   - the origin's node on the ClusterNode, when the origin is known;
//   - the global inbound node, for inbound calls (system rules read it).
//
// Each node keeps Java's sliding windows: a second of 2 x 500 ms buckets,
// which rule checks read, and, on ClusterNodes and the inbound node, a
// minute of 60 x 1 s buckets for history. See package stat.
//
// # The slot chain
//
// Every resource has a chain of slots in Java's order: NodeSelector (-10000),
// ClusterBuilder (-9000), Log (-8000) and Statistic (-7000), built in; then
// Authority (-6000), System (-5000), ParamFlow (-3000), Flow (-2000),
// DefaultCircuitBreaker (-1500) and Degrade (-1000), which the rule packages
// runtime/authority, runtime/system, runtime/paramflow, runtime/flow and
// runtime/degrade register when imported (a program that loads rules of a
// kind imports its package). Applications add their own with RegisterSlot.
//
// A slot binds to each resource (Slot.Bind) and takes part in its calls only
// where it has rules for it, so a call pays for the rules of its resource
// and for nothing else.
//
// # What users call, and what slot and adapter authors implement
//
// Protecting code takes Entry, SentinelEntry (Exit, Context, SetError),
// Enter and Ticket (the same, allocating nothing),
// the EntryOptions (WithArgs, WithTrafficType, WithResourceType,
// WithBatchCount, WithPrioritized), WithError, EnterContext and
// ContextName, Declare and ResourceSpec, BlockError and ErrBlocked.
// Operating it takes SetEnabled, SetLogger, SetBlockLogLines, SetClock,
// EnableRTHistogram, and what the dashboard and the metrics collector
// read: Resources, LookupResource, Tree, RTHistogram and Dependencies.
// Nothing else is needed to protect a service.
//
// Writing a slot of your own, as the rule packages do, takes the rest:
//
//   - Slot (Bind a resource to a Checker), RegisterSlot, UnregisterSlot,
//     Slots and SlotInfo, and the order constants (OrderFlow, ...);
//   - Checker (Check a Call, Exit it), and the interfaces a Checker may
//     add: ExitSkipper (nothing to give back at exit), ExitsOnCurrentRules
//     (exited on the rules in force at exit, as breakers are);
//   - ResourceNamer and Naming: a Slot whose rules name resources, exactly
//     or by pattern, so that such a resource keeps its own chain past
//     MaxResources;
//   - Call (the call's resource, nodes, origin, arguments through
//     ArgsReader, clock), NewBlockError, CountDryRunBlock, and
//     NewSharedBlockError: the read-only BlockError a Checker builds once
//     per rule and resource and returns from every refusal for that reason,
//     so that a refusal allocates nothing beyond its entry (BlockError.Shared
//     tells adapters they may build their answer to it once too);
//   - Rule, RuleError and RuleErrors (positioned rule errors), Property and
//     NewProperty (a rule set data sources update), RulesChanged (rebind
//     chains after a load).
//
// Writing an adapter (a web framework, an RPC system) takes EntryWith and
// EntryInContextWith, which keep an adapter's per-call state in the
// entry's one allocation, and SharedContext (EntryInSharedContextWith),
// a Sentinel context resolved once for the calls an adapter enters in the
// same context with the same origin; a tracing adapter registers an Observer
// (AddObserver); a client of a server the rules depend on (a cluster
// store, a rule source) reports its outages through a Dependency
// (NewDependency).
//
// # Bounded tables
//
// Callers choose much of what the runtime keeps: origins come from request
// headers, resource names from URL paths. Every table is bounded in entries
// and bytes, a new value costs O(1) however many came before, and what does
// not fit is counted together, never waved through:
//
//   - resources: MaxResources created by calls, plus as many again that are
//     declared (Declare) or named by a rule (ResourceNamer; names only a
//     regex rule matches take half of that room at most); calls to further
//     names count on OverflowResourceName, whose chain still applies the
//     rules for every resource (system rules, default breakers);
//   - contexts: MaxContexts names besides the default; calls in further
//     contexts count under the entrance OverflowContextName and are checked
//     as usual;
//   - origins: MaxOriginBytes each, MaxOriginsPerResource per resource and
//     MaxOrigins in all; further origins count on one overflow node
//     (OverflowOrigin), which flow rules for "other" limit as one caller.
//     An origin a rule names keeps a node of its own (ReserveOrigin).
//
// Java passes calls past its caps unchecked and keeps origins without
// bound.
//
// # The block log
//
// The Log slot writes Java's block log through the logger (SetLogger): one
// line per resource, block type, rule and origin per second, with the
// number of blocks it stands for, never one line per blocked call. Under a
// storm of distinct origins it stays small: the busiest
// DefaultBlockLogLines combinations get a line each (SetBlockLogLines), the
// rest of the second is folded into one line per resource and one for the
// remaining resources, and the lines' blocks add up to every block. Values
// are written valid UTF-8 with control characters escaped and cut to a few
// hundred bytes, so a caller can neither forge a line nor blow one up.
//
// Why a resource blocks can also be asked of it: Resource.BlockCount
// counts its blocks by type since the process started, and
// Resource.LastBlock is the type and rule of its latest block, as the
// block log keeps it; Resource.Protected says whether any rule applies to
// it. Neither costs a blocked call more than the counting and logging it
// does anyway.
//
// # Dry-run rules
//
// A rule of any kind may be a dry-run rule ("dryRun": true): it runs fully
// but admits the calls it would block. Its slot reports each such call
// with CountDryRunBlock, which counts it by resource and block type
// (Resource.DryRunBlockCount, apart from BlockCount) and writes it to the
// block log on lines of their own, "sentinel: would block (dry run)". The
// call then goes on through the chain and counts as a pass. A slot keeps
// what a dry-run rule took from the calls it admitted apart from the calls
// it refused, which took nothing, so that Exit gives back only the former.
// A resource without dry-run rules pays nothing for them.
//
// # Where this differs from Java
//
//   - A DefaultNode or an origin's node keeps the second window only; the
//     minute of history is kept on each resource's ClusterNode and on the
//     inbound node, which is what metrics and the dashboard read, and it is
//     filled from the second window's retired buckets rather than written
//     by every call (stat.Node.History).
//   - While a resource is called in one context only, its DefaultNode in
//     that context counts in the ClusterNode's window, which holds the
//     same calls, so a call writes it once (Java writes both). When a
//     second context calls the resource, the first node gets a window of
//     its own, seeded with what the shared one holds. A call in flight is
//     counted once, on its DefaultNode, and the ClusterNode's calls in
//     flight are the sum of its DefaultNodes', so no node's count is ever
//     negative or holds another context's calls; reading it costs one
//     counter per context that called the resource, which a thread-grade
//     flow rule pays on every check. A call counted in the microseconds of
//     that split may be counted twice in the first node's window, never
//     lost from it.
//   - Counters are striped by processor, so parallel callers do not contend
//     on shared cache lines, and no count is lost when a bucket is renewed
//     under concurrent writers (Java's reset can lose counts).
//   - Exiting an entry before its nested entries exits them, innermost
//     first, then the entry, and logs a warning. Java exits every entry
//     of the context's stack, the exited entry's ancestors too, and throws
//     ErrorEntryFreeException; here the ancestors stay open, for the
//     callers further up whose deferred Exit is still to run.
//   - A prioritized call that borrowed from a window to come (package
//     flow) counts its pass on all its nodes, in the window it waited
//     for; Java counts it on the flow rule's node only, so its DefaultNode,
//     origin node and the inbound node never see it.
//   - A prioritized call that waited for a borrowed window passes without
//     the slots after the flow slot, as in Java (PriorityWaitException),
//     and they do not see its exit either: a slot exits only calls it
//     checked. Java's DegradeSlot.exit still counts such a call on the
//     circuit breakers.
//   - Waits end, refusing the call, when the caller's context is done;
//     Java's waits ignore interrupts.
//
// Otherwise the Statistic slot counts as Java's: a call's pass or block
// when its checks return, after any wait (Call.NowMillis), its response
// time from its entry to its exit. Slots that keep what a call took are
// exited on the Checkers that admitted it; circuit breakers are looked up
// at exit (ExitsOnCurrentRules), as Java's DegradeSlot.exit does.
// docs/java-differences.md in the repository lists every difference from
// Java, the rule packages' included.
//
// # Observers
//
// AddObserver registers an Observer that sees every call enter, get
// refused or exit, wherever the call was opened (generated wrappers, the
// HTTP, gRPC and web framework adapters, Entry itself), and may give the
// call a context of its own (a span, say): what package sentinelotel uses
// to put refusals on the callers' spans. Without one a call pays one
// atomic load and a nil check at entry and one at its end (Java's
// StatisticSlotCallbackRegistry).
//
// # Response-time histograms
//
// EnableRTHistogram turns on, per resource, a histogram of response times
// in microsecond buckets (RTHistogramBounds, 25 µs to 10 s), timed on the
// monotonic clock rather than the millisecond statistics' cached one: what
// percentiles need, and what package runtime/metrics and package
// sentinelotel export as histograms. It is opt-in for its cost: 65 to
// 100 ns per call of that resource on a 2-core VM, and an entry of 144
// bytes instead of 128, still one allocation.
//
// # Time
//
// The runtime reads a cached millisecond clock, never time.Now on the hot
// path (a resource's histogram, when on, reads the monotonic clock).
// SetClock replaces it; package clocktest has a hand-stepped clock for
// tests.
package runtime
