package annotations

import (
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fileSrc = `package p

// getOrder loads an order.
//
//sentinel:resource name=getOrder blockHandler=onBlock
func (s *S) getOrder() error { return nil }

//sentinel:resource
//sentinel:resource name=twice
func twice() {}

//sentinel:resource
type T struct{}

func f() {
	//sentinel:resource
	_ = 1
}

//sentinel:resorce name=x
func typo() {}

// Text mentioning sentinel:resource in prose is not a directive.
func prose() {}

// sentinel:resource name=spaced
func spaced() {}
`

func TestParseFile(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", fileSrc, parser.ParseComments)
	require.NoError(t, err)
	ds, errs := ParseFile(fset, f)
	require.Len(t, ds, 2)
	assert.Equal(t, "getOrder", ds[0].Func.Name.Name)
	assert.Equal(t, "getOrder", ds[0].Name.Text)
	assert.Equal(t, "p.go:5:1", ds[0].Pos.String())
	assert.Equal(t, "p.go:5:26", ds[0].Name.Pos.String())
	assert.Equal(t, "twice", ds[1].Func.Name.Name)
	assert.Equal(t, []string{
		"p.go:9:1: second //sentinel:resource directive on twice; the first is at line 8",
		"p.go:12:1: //sentinel:resource annotates a function or method, not a type declaration",
		"p.go:16:2: //sentinel:resource annotates a function or method; this comment is not the doc comment of one",
		"p.go:20:1: unknown directive //sentinel:resorce; did you mean //sentinel:resource?",
		"p.go:26:1: a directive has no space after //: write //sentinel:resource",
	}, errLines(errs))
}
