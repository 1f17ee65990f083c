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
	ds, errs := parseSource(t, fileSrc)
	require.Len(t, ds, 2)
	assert.Equal(t, "getOrder", ds[0].Func.Name.Name)
	assert.Equal(t, "getOrder", ds[0].Name.Text)
	assert.Equal(t, "p.go:5:1", ds[0].Pos.String())
	assert.Equal(t, "p.go:5:26", ds[0].Name.Pos.String())
	assert.Equal(t, "twice", ds[1].Func.Name.Name)
	assert.Equal(t, []string{
		"p.go:9:1: second //sentinel:resource directive on twice; the first is at line 8",
		"p.go:12:1: //sentinel:resource annotates a function or method, not a type declaration; to protect an implementation of an interface type, write //sentinel:decorate",
		"p.go:16:2: //sentinel:resource annotates a function or method; this comment is not the doc comment of one",
		"p.go:20:1: unknown directive //sentinel:resorce; did you mean //sentinel:resource?",
		"p.go:26:1: a directive has no space after //: write //sentinel:resource",
	}, errLines(errs))
}

const decorateSrc = `package p

// Payments is a client we do not own.
//
//sentinel:decorate name=payments.{method} fallback=down
type Payments interface {
	//sentinel:resource batch=2
	Charge(id int64) error
	// Refund gives money back.
	//
	//sentinel:resource wrapper=R
	Refund(id int64) error
}

type (
	//sentinel:decorate
	Grouped interface{ M() error }

	//sentinel:decorate
	//sentinel:decorate
	Twice interface{ M() error }
)

type Plain interface {
	//sentinel:resource
	M() error
}

//sentinel:decorate
func f() {}

//sentinel:decorate
var v int

type Inner interface {
	//sentinel:decorate
	M() error
}

//sentinel:decorat
type Typo interface{}
`

func TestParseFileDecorate(t *testing.T) {
	ds, errs := parseSource(t, decorateSrc)
	require.Len(t, ds, 3)
	assert.Equal(t, "Payments", ds[0].TypeDecl.Name.Name)
	assert.True(t, ds[0].Bad, "a method's directive was refused: the interface is not generated otherwise than asked")
	require.Len(t, ds[0].Methods, 1, "Charge's")
	assert.Equal(t, "Grouped", ds[1].TypeDecl.Name.Name)
	assert.Equal(t, "Twice", ds[2].TypeDecl.Name.Name)
	assert.Equal(t, []string{
		"p.go:11:22: wrapper= does not apply to a method of a decorated interface: the method keeps its name; wrapper= on //sentinel:decorate names the constructor",
		"p.go:20:2: second //sentinel:decorate directive on Twice; the first is at line 19",
		"p.go:25:2: //sentinel:resource on a method of Plain sets that method's keys for //sentinel:decorate: add //sentinel:decorate above type Plain",
		"p.go:29:1: //sentinel:decorate annotates an interface type, not a function; to protect f, write //sentinel:resource",
		"p.go:32:1: //sentinel:decorate annotates an interface type, not a var declaration",
		"p.go:36:2: //sentinel:decorate annotates an interface type, not one of its methods: move it above type Inner, or write //sentinel:resource to set this method's keys",
		"p.go:40:1: unknown directive //sentinel:decorat; did you mean //sentinel:decorate?",
	}, errLines(errs))
}

func TestParseFileDecorateMethods(t *testing.T) {
	src := "package p\n\n//sentinel:decorate\ntype P interface {\n\t//sentinel:resource batch=2\n\tA() error\n\tB() error\n}\n"
	ds, errs := parseSource(t, src)
	require.Empty(t, errs)
	require.Len(t, ds, 1)
	require.Len(t, ds[0].Methods, 1)
	m := ds[0].Methods[0]
	assert.Equal(t, "A", m.Method.Names[0].Name)
	assert.Equal(t, 2, m.Batch)
	assert.Contains(t, m.Given, "batch")
	assert.NotContains(t, m.Given, "name")
}

func TestParseFileDecorateOnAGroup(t *testing.T) {
	src := "package p\n\n//sentinel:decorate\ntype (\n\tA interface{ M() error }\n\tB interface{ M() error }\n)\n\n//sentinel:decorate\ntype (\n\tC interface{ M() error }\n)\n"
	ds, errs := parseSource(t, src)
	assert.Equal(t, []string{
		"p.go:3:1: //sentinel:decorate annotates one interface type: move it into the doc comment of one type of the group",
	}, errLines(errs))
	require.Len(t, ds, 1, "a group of one type is that type")
	assert.Equal(t, "C", ds[0].TypeDecl.Name.Name)
}

// parseSource parses src as p.go and finds its directives.
func parseSource(t *testing.T, src string) ([]*Directive, ErrorList) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	require.NoError(t, err)
	return ParseFile(fset, f)
}
