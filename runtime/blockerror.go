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
type BlockError struct {
	blockType BlockType
	resource  string
	rule      Rule
	triggered any
	message   string
}

// NewBlockError returns a BlockError for slots that block outside a Call.
// Slots normally use Call.Block.
func NewBlockError(t BlockType, resource string, rule Rule, triggered any) *BlockError {
	return &BlockError{blockType: t, resource: resource, rule: rule, triggered: triggered}
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

// WithMessage sets a detail shown by Error, and returns b.
func (b *BlockError) WithMessage(msg string) *BlockError {
	b.message = msg
	return b
}

func (b *BlockError) Error() string {
	msg := fmt.Sprintf("sentinel: %q blocked by %s rule", b.resource, b.blockType)
	if b.message != "" {
		msg += ": " + b.message
	}
	return msg
}

// Is reports whether target is ErrBlocked.
func (b *BlockError) Is(target error) bool { return target == ErrBlocked }
