package annotations

import (
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func linePos() token.Position {
	return token.Position{Filename: "a.go", Line: 3, Column: 1, Offset: 40}
}

// errLines prints errors as the CLI does, one line each.
func errLines(errs ErrorList) []string {
	errs.Sort()
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestParseLineAcceptsEveryKey(t *testing.T) {
	d, errs := ParseLine(linePos(), `//sentinel:resource name="GET:/api/order, v2" blockHandler=onBlock fallback=pkg.Fallback `+
		`defaultFallback=dflt ignore=ErrNotFound,io.EOF,*NotFoundError,*fs.PathError traffic=in type=web args=id,name batch=3 wrapper=Get`)
	require.Empty(t, errLines(errs))
	assert.Equal(t, "GET:/api/order, v2", d.Name.Text)
	assert.Equal(t, 26, d.Name.Pos.Column, "a value's position is its first byte (the quote)")
	assert.Equal(t, "onBlock", d.BlockHandler.Text)
	assert.Equal(t, "pkg.Fallback", d.Fallback.Text)
	assert.Equal(t, "dflt", d.DefaultFallback.Text)
	assert.Equal(t, []string{"ErrNotFound", "io.EOF", "*NotFoundError", "*fs.PathError"}, texts(d.Ignore))
	assert.Equal(t, Inbound, d.Traffic)
	assert.Equal(t, ResourceType{"web", "Web"}, d.Type)
	assert.Equal(t, []string{"id", "name"}, texts(d.Args))
	assert.Equal(t, 3, d.Batch)
	assert.Equal(t, "Get", d.Wrapper.Text)
	assert.Equal(t, resourceKeys(), keysGiven(d), "the line gives every key, and each reached the directive")
}

// resourceKeys are the keys a //sentinel:resource line takes.
func resourceKeys() []string {
	var out []string
	for _, k := range keys {
		if !k.decorateOnly {
			out = append(out, k.name)
		}
	}
	return out
}

func TestParseDecorateLine(t *testing.T) {
	d, errs := ParseLine(linePos(), `//sentinel:decorate name=payments.{method} blockHandler=down fallback=pkg.Down `+
		`ignore=ErrDeclined traffic=in type=rpc args=id batch=2 wrapper=Guard exclude=Ping,Close`)
	require.Empty(t, errLines(errs))
	assert.True(t, d.Decorate)
	assert.Equal(t, "payments.{method}", d.Name.Text)
	assert.Equal(t, []string{"Ping", "Close"}, texts(d.Exclude))
	assert.Equal(t, ResourceType{"rpc", "RPC"}, d.Type)
	assert.Equal(t, "Guard", d.Wrapper.Text)
	assert.Equal(t, 2, d.Batch)
	assert.Contains(t, d.Given, "exclude")
	assert.NotContains(t, d.Given, "defaultFallback")
}

func TestParseLineKeysOfTheOtherDirective(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"exclude on a method", `//sentinel:resource exclude=Ping`,
			"a.go:3:21: exclude= applies to //sentinel:decorate only, where it names methods of the interface"},
		{"defaultFallback on an interface", `//sentinel:decorate defaultFallback=d`,
			"a.go:3:21: defaultFallback= does not apply to //sentinel:decorate: name a fallback (a variable of the interface's type, or a func(error) returning one)"},
		{"exclude lists method names", `//sentinel:decorate exclude=Ping,1x,Ping`,
			"a.go:3:34: exclude: 1x is not a method name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, errs := ParseLine(linePos(), tt.text)
			require.NotEmpty(t, errs)
			assert.Equal(t, tt.want, errLines(errs)[0])
			assert.True(t, d.Bad)
		})
	}
}

// keysGiven lists the keys a parsed directive holds a non-default value
// for, in table order.
func keysGiven(d *Directive) []string {
	var out []string
	for _, kv := range []struct {
		k   string
		set bool
	}{
		{"name", d.Name.IsSet()}, {"blockHandler", d.BlockHandler.IsSet()}, {"fallback", d.Fallback.IsSet()},
		{"defaultFallback", d.DefaultFallback.IsSet()}, {"ignore", len(d.Ignore) > 0}, {"traffic", d.Traffic == Inbound},
		{"type", d.Type != ResourceTypes[0]}, {"args", d.Args != nil}, {"batch", d.Batch != 1}, {"wrapper", d.Wrapper.IsSet()},
		{"exclude", len(d.Exclude) > 0},
	} {
		if kv.set {
			out = append(out, kv.k)
		}
	}
	return out
}

func TestParseLineDefaults(t *testing.T) {
	d, errs := ParseLine(linePos(), "//sentinel:resource")
	require.Empty(t, errs)
	assert.False(t, d.Name.IsSet())
	assert.Equal(t, Outbound, d.Traffic)
	assert.Equal(t, "common", d.Type.Name)
	assert.Equal(t, 1, d.Batch)
	assert.Nil(t, d.Args, "args= not given: the default list")
}

func TestParseLineEmptyArgsMeansNone(t *testing.T) {
	for _, text := range []string{`//sentinel:resource args=""`, `//sentinel:resource args=`} {
		d, errs := ParseLine(linePos(), text)
		require.Empty(t, errs, text)
		assert.NotNil(t, d.Args, text)
		assert.Empty(t, d.Args, text)
	}
}

func TestParseLineQuotingAndTabs(t *testing.T) {
	d, errs := ParseLine(linePos(), "//sentinel:resource\tname=\"say \\\"hi\\\"\"\t\ttraffic=in")
	require.Empty(t, errLines(errs))
	assert.Equal(t, `say "hi"`, d.Name.Text)
	assert.Equal(t, Inbound, d.Traffic)
}

func TestParseLineListItemPositions(t *testing.T) {
	text := `//sentinel:resource ignore="io.EOF, ErrGone" args=a,b`
	d, errs := ParseLine(linePos(), text)
	require.Empty(t, errs)
	for _, v := range append(d.Ignore, d.Args...) {
		assert.Equal(t, v.Text, text[v.Pos.Column-1:v.Pos.Column-1+len(v.Text)], "item %q points at itself", v.Text)
	}
}

func TestParseLineNotADirective(t *testing.T) {
	for _, text := range []string{"// sentinel:resource", "//sentinel:resources", "//go:generate x"} {
		d, errs := ParseLine(linePos(), text)
		assert.Nil(t, d, text)
		assert.Empty(t, errs, text)
	}
}

func TestParseLineErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"unknown key suggests the nearest", `//sentinel:resource fallbak=f`,
			[]string{"a.go:3:21: unknown key fallbak; did you mean fallback?"}},
		{"key case typo", `//sentinel:resource blockhandler=f`,
			[]string{"a.go:3:21: unknown key blockhandler; did you mean blockHandler?"}},
		{"Java attribute names the Go key", `//sentinel:resource value=x entryType=in`,
			[]string{"a.go:3:21: unknown key value; did you mean name?", "a.go:3:29: unknown key entryType; did you mean traffic?"}},
		{"unknown key with nothing near", `//sentinel:resource zzzzzzz=1`,
			[]string{"a.go:3:21: unknown key zzzzzzz; want one of name, blockHandler, fallback, defaultFallback, ignore, traffic, type, args, batch, wrapper, exclude"}},
		{"duplicate key", `//sentinel:resource name=a name=b`,
			[]string{"a.go:3:28: duplicate key name"}},
		{"traffic sideways", `//sentinel:resource traffic=sideways`,
			[]string{"a.go:3:29: traffic=sideways: want in or out"}},
		{"batch zero", `//sentinel:resource batch=0`,
			[]string{"a.go:3:27: batch=0: want a positive integer"}},
		{"batch not a number", `//sentinel:resource batch=lots`,
			[]string{"a.go:3:27: batch=lots: want a positive integer"}},
		{"type typo", `//sentinel:resource type=wbe`,
			[]string{"a.go:3:26: type=wbe: want one of common, web, rpc, gateway, db, cache, mq (did you mean web?)"}},
		{"spaces around =", `//sentinel:resource blockHandler = handleBlock name=x`,
			[]string{"a.go:3:21: blockHandler = handleBlock: no spaces around =; write blockHandler=handleBlock"}},
		{"space before =", `//sentinel:resource name ="a b"`,
			[]string{`a.go:3:21: name ="a b": no spaces around =; write name="a b"`}},
		{"space after =", `//sentinel:resource fallback= f`,
			[]string{"a.go:3:21: fallback= f: no spaces around =; write fallback=f"}},
		{"missing =", `//sentinel:resource name`,
			[]string{`a.go:3:21: expected key=value, found "name"`}},
		{"empty value", `//sentinel:resource name=`,
			[]string{`a.go:3:26: name="": empty value`}},
		{"unterminated quote", `//sentinel:resource name="abc`,
			[]string{"a.go:3:26: unterminated quoted value"}},
		{"text glued to a quote", `//sentinel:resource name="a"b`,
			[]string{"a.go:3:29: expected a space after the quoted value"}},
		{"bad handler", `//sentinel:resource blockHandler=a.b.c`,
			[]string{"a.go:3:34: blockHandler=a.b.c: want a function name or pkg.Func"}},
		{"bad wrapper", `//sentinel:resource wrapper=func`,
			[]string{"a.go:3:29: wrapper=func: want an identifier"}},
		{"bad list items", `//sentinel:resource args=a,,1x ignore=**E`,
			[]string{"a.go:3:28: args: empty item in list", "a.go:3:29: args: 1x is not a parameter name",
				"a.go:3:39: ignore: **E is not an error value or type (want Name, pkg.Name, *Name or *pkg.Name)"}},
		{"duplicate arg", `//sentinel:resource args=a,a`,
			[]string{"a.go:3:28: args: duplicate parameter a"}},
		{"every problem of the line at once", `//sentinel:resource traffic=up batch=-1 nme=x`,
			[]string{"a.go:3:29: traffic=up: want in or out", "a.go:3:38: batch=-1: want a positive integer",
				"a.go:3:41: unknown key nme; did you mean name?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, errs := ParseLine(linePos(), tt.text)
			assert.Equal(t, tt.want, errLines(errs))
			assert.True(t, d.Bad)
		})
	}
}

// args= with nothing after it is an empty list, not a spaced pair, when
// another key=value pair follows.
func TestEmptyArgsBeforeAnotherPair(t *testing.T) {
	d, errs := ParseLine(linePos(), `//sentinel:resource args= name=x`)
	assert.Empty(t, errs)
	assert.Equal(t, "x", d.Name.Text)
	assert.NotNil(t, d.Args)
	assert.Empty(t, d.Args)
}

func TestErrorListSortsAndDedups(t *testing.T) {
	var l ErrorList
	l.Add(token.Position{Filename: "b.go", Line: 1, Column: 1}, "b")
	l.Add(token.Position{Filename: "a.go", Line: 2, Column: 5}, "y")
	l.Add(token.Position{Filename: "a.go", Line: 2, Column: 1}, "x")
	l.Add(token.Position{Filename: "a.go", Line: 2, Column: 1}, "x")
	err := l.Err()
	require.Error(t, err)
	assert.Equal(t, "a.go:2:1: x\na.go:2:5: y\nb.go:1:1: b", err.Error())
	assert.NoError(t, ErrorList(nil).Err())
}

func texts(vs []Value) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Text)
	}
	return out
}

func TestSuggest(t *testing.T) {
	assert.Equal(t, "defaultFallback", suggestKey("defaultFalback"))
	assert.Equal(t, "", suggestKey("x"))
	assert.Equal(t, "blockHandler", suggestKey("blockHandlerClass"), "a Java attribute names its key")
	assert.True(t, strings.HasPrefix(Prefix, "//"))
}

func TestParseLineAcceptsGoIdentifiers(t *testing.T) {
	// Unicode digits are identifier characters (x/tools names its
	// extracted functions so).
	d, errs := ParseLine(linePos(), `//sentinel:resource wrapper=Lookup۰v2 defaultFallback=sentinelDF_ext۰bytes۰Equal blockHandler=pkg.Ünïcode args=β,ĳ`)
	require.Empty(t, errLines(errs))
	assert.Equal(t, "Lookup۰v2", d.Wrapper.Text)
	assert.Equal(t, "sentinelDF_ext۰bytes۰Equal", d.DefaultFallback.Text)
	assert.Equal(t, "pkg.Ünïcode", d.BlockHandler.Text)
	assert.Equal(t, []string{"β", "ĳ"}, texts(d.Args))
	for _, bad := range []string{"۰v2", "a-b", "a·b"[:2], "go"} {
		_, errs := ParseLine(linePos(), `//sentinel:resource wrapper=`+strconv.Quote(bad))
		assert.NotEmpty(t, errs, bad)
	}
}

func TestParseLineRefusesNonUTF8(t *testing.T) {
	tests := []struct{ text, want string }{
		{`//sentinel:resource name="ab\xff"`, `a.go:3:26: name="ab\xff": not valid UTF-8`},
		{`//sentinel:resource wrapper="W\xc3"`, `a.go:3:29: wrapper="W\xc3": not valid UTF-8`},
		{`//sentinel:resource blockHandler="h\xff"`, `a.go:3:34: blockHandler="h\xff": not valid UTF-8`},
		{`//sentinel:resource ignore="io.EOF,E\xff"`, `a.go:3:28: ignore="io.EOF,E\xff": not valid UTF-8`},
		{`//sentinel:resource args="a\xff"`, `a.go:3:26: args="a\xff": not valid UTF-8`},
		// A raw invalid byte: Go source would not compile, but ParseLine
		// takes any text.
		{"//sentinel:resource name=a\xffb", `a.go:3:26: name="a\xffb": not valid UTF-8`},
	}
	for _, tt := range tests {
		d, errs := ParseLine(linePos(), tt.text)
		assert.Equal(t, []string{tt.want}, errLines(errs), tt.text)
		assert.True(t, d.Bad)
	}
	d, errs := ParseLine(linePos(), `//sentinel:resource name=ab\xff`)
	assert.Empty(t, errs, "unquoted, a backslash is just a character")
	assert.Equal(t, `ab\xff`, d.Name.Text)
}
