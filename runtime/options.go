package runtime

// EntryOption configures one call to Entry. Options are plain values, so
// passing them costs no allocation.
type EntryOption struct {
	kind entryOptionKind
	n    int64
	args []any
}

type entryOptionKind uint8

const (
	optArgs entryOptionKind = iota + 1
	optTraffic
	optResourceType
	optBatch
	optPrioritized
)

// WithArgs passes the call's arguments to hot-parameter rules (Java's
// SphU.entry args). Boxing arguments allocates: pass them only when
// Resource.NeedsArgs says a rule reads them.
func WithArgs(args ...any) EntryOption { return EntryOption{kind: optArgs, args: args} }

// WithTrafficType overrides the resource's declared traffic type.
func WithTrafficType(t TrafficType) EntryOption {
	return EntryOption{kind: optTraffic, n: int64(t)}
}

// WithResourceType overrides the resource's declared type.
func WithResourceType(t ResourceType) EntryOption {
	return EntryOption{kind: optResourceType, n: int64(t)}
}

// WithBatchCount acquires n tokens instead of 1 (Java's count). Values
// below 1 count as 1.
func WithBatchCount(n int) EntryOption { return EntryOption{kind: optBatch, n: int64(n)} }

// WithPrioritized makes the call prioritized (Java's
// SphU.entryWithPriority): when a QPS flow rule refuses it, it may borrow
// a pass from the window to come instead, wait for that window (at most
// flow's occupy timeout, 500 ms by default) and pass. Ordinary calls never
// overshoot a rule's count because of it: what prioritized calls borrowed
// counts in the windows they borrowed from. See package flow.
func WithPrioritized() EntryOption { return EntryOption{kind: optPrioritized} }

// ExitOption configures SentinelEntry.Exit.
type ExitOption struct {
	err error
}

// WithError records err on the entry as it exits, as SetError does.
func WithError(err error) ExitOption { return ExitOption{err: err} }
