package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// asBlock presents itself as a *BlockError through an As method, as
// errors.As honours, without wrapping one.
type asBlock struct{ b *BlockError }

func (e asBlock) Error() string { return "blocked, in other words" }

func (e asBlock) As(target any) bool {
	if p, ok := target.(**BlockError); ok {
		*p = e.b
		return true
	}
	return false
}

func TestIsBlockHonoursAsMethods(t *testing.T) {
	assert.True(t, isBlock(asBlock{b: &BlockError{}}), "an As method that answers *BlockError is a block")
	assert.False(t, isBlock(errPlain("boom")), "a plain error is not a block")
}

type errPlain string

func (e errPlain) Error() string { return string(e) }
