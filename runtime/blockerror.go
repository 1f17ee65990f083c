package runtime

import (
	"errors"
	"fmt"
)

// ErrBlocked matches every *BlockError with errors.Is.
var ErrBlocked = errors.New("sentinel: blocked")

// Rule is what every rule kind's Rule type offers the runtime: the resource
// it protects (a pattern when the rule is a regex rule).
type Rule interface {
	ResourceName() string
}

// BlockError is Java's BlockException: the reason a call was refused. It is
// returned by Entry instead of an entry, passed to block handlers by
// generated wrappers, and returned as the last error result when a wrapper
// has no handler.
//
// The refusals of one rule on one resource may all return the same
// BlockError (see NewSharedBlockError): a refusal then allocates no error.
// A BlockError is read-only to its users, so keeping one, or passing it to
// other goroutines, is safe; WithMessage on a shared one returns a copy.
type BlockError struct {
	blockType BlockType
	// shared: built once and returned by every refusal for one reason;
	// nothing may change it after NewSharedBlockError returns.
	shared    bool
	resource  string
	rule      Rule
	triggered any
	message   string
	text      string // Error's text, built once for a shared BlockError
}

// NewBlockError returns a BlockError for slots that block outside a Call.
// Slots normally use Call.Block.
func NewBlockError(t BlockType, resource string, rule Rule, triggered any) *BlockError {
	return &BlockError{blockType: t, resource: resource, rule: rule, triggered: triggered}
}

// NewSharedBlockError returns a BlockError a Checker builds once, when it
// binds to a resource, and returns from every Check that refuses a call
// for the same reason (block type, resource, rule and triggered value), so
// that a refusal allocates no error: under overload, most calls are
// refused. Its text is built here too, so Error allocates nothing either.
// Values that vary per call (a hot parameter, an origin, a system metric)
// need Call.Block instead.
//
// Callers may keep it and share it between goroutines: it never changes,
// and WithMessage returns a copy of it rather than changing it.
func NewSharedBlockError(t BlockType, resource string, rule Rule, triggered any) *BlockError {
	b := &BlockError{blockType: t, shared: true, resource: resource, rule: rule, triggered: triggered}
	b.text = b.format()
	return b
}

// BlockType says which kind of rule blocked the call.
func (b *BlockError) BlockType() BlockType { return b.blockType }

// Resource is the name of the blocked resource.
func (b *BlockError) Resource() string { return b.resource }

// Rule is the rule that blocked the call; type-assert it to the rule kind's
// type (for example *flow.Rule). It may be nil for custom slots.
func (b *BlockError) Rule() Rule { return b.rule }

// TriggeredValue is the value that tripped the rule: the hot parameter for
// hot-parameter rules, the system metric for system rules, the origin for
// authority rules.
func (b *BlockError) TriggeredValue() any { return b.triggered }

// Shared reports whether b is a shared BlockError (NewSharedBlockError),
// which every refusal for its reason returns: what an adapter derives from
// it alone (an answer, a status) it can build once and reuse.
func (b *BlockError) Shared() bool { return b.shared }

// WithMessage sets a detail shown by Error, and returns b. On a shared
// BlockError (NewSharedBlockError), which other refusals return too, it
// returns a copy with the detail instead, and b stays as it was.
func (b *BlockError) WithMessage(msg string) *BlockError {
	if b.shared {
		c := *b
		c.shared, c.text = false, ""
		b = &c
	}
	b.message = msg
	return b
}

func (b *BlockError) Error() string {
	if b.text != "" {
		return b.text
	}
	return b.format()
}

// format is Error's text.
func (b *BlockError) format() string {
	msg := fmt.Sprintf("sentinel: %q blocked by %s rule", b.resource, b.blockType)
	if b.message != "" {
		msg += ": " + b.message
	}
	return msg
}

// Is reports whether target is ErrBlocked.
func (b *BlockError) Is(target error) bool { return target == ErrBlocked }
