package annotations

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no directive text makes the parser panic, and that
// every position it reports lies on the directive's line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`//sentinel:resource`,
		`//sentinel:resource name="GET:/api/order" blockHandler=h fallback=pkg.F defaultFallback=d`,
		`//sentinel:resource ignore="io.EOF, *fs.PathError" args=a,b traffic=in type=web batch=2 wrapper=W`,
		`//sentinel:resource name="unterminated`,
		`//sentinel:resource name="\"esc\\aped\"" x=`,
		`//sentinel:resource =v ==  name="a"b batch=0 traffic=sideways`,
		"//sentinel:resource\tname=a\tname=b",
		`//sentinel:resource args=,,, ignore=*`,
		"//sentinel:resource name=\"\xff\"",
		`//sentinel:decorate name=payments.{method} fallback=down exclude=Ping,Close wrapper=Guard`,
		`//sentinel:decorate exclude=,1x,Ping,Ping defaultFallback=d`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if strings.ContainsAny(text, "\n") {
			return // a line comment holds one line
		}
		d, errs := ParseLine(linePos(), text)
		if d == nil {
			if IsDirective(text) || len(errs) > 0 {
				t.Fatalf("directive %q not parsed", text)
			}
			return
		}
		for _, e := range errs {
			if off := e.Pos.Offset - linePos().Offset; off < 0 || off > len(text) {
				t.Errorf("%q: error %q outside the line", text, e)
			}
		}
		for _, v := range append(append(append([]Value{d.Name, d.Wrapper}, d.Ignore...), d.Args...), d.Exclude...) {
			if v.IsSet() && (v.Pos.Offset < linePos().Offset || v.Pos.Offset > linePos().Offset+len(text)) {
				t.Errorf("%q: value %q outside the line", text, v.Text)
			}
		}
		for _, v := range append(append([]Value{d.Name, d.Wrapper, d.BlockHandler, d.Fallback, d.DefaultFallback}, d.Ignore...), d.Args...) {
			if !utf8.ValidString(v.Text) {
				t.Errorf("%q: value %q is not UTF-8", text, v.Text)
			}
		}
		if d.Batch < 1 {
			t.Errorf("%q: batch %d", text, d.Batch)
		}
	})
}
