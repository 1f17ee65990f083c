package datasource_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// BenchmarkLoad10000 is what a rule file reload costs: decode, validate and
// load (through flow.Property().Update, compiling the rule set) 10,000
// Java-shaped flow rules, about 1 MB of JSON.
func BenchmarkLoad10000(b *testing.B) {
	doc := ruleDoc(10_000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := datasource.Load("flow.json", doc, datasource.Flow); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	_ = flow.LoadRules(nil)
}

// BenchmarkDecode10000 is the decoding share of BenchmarkLoad10000.
func BenchmarkDecode10000(b *testing.B) {
	doc := ruleDoc(10_000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := datasource.Flow.Decode("flow.json", doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadCombined10000 loads 10,000 rules spread over the five kinds.
func BenchmarkLoadCombined10000(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"flow":`)
	sb.Write(ruleDoc(4000))
	sb.WriteString(`,"degrade":[`)
	for i := range 3000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"resource":"resource-%d","grade":0,"count":200,"timeWindow":10,"slowRatioThreshold":0.5}`, i)
	}
	sb.WriteString(`],"authority":[`)
	for i := range 2000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"resource":"resource-%d","limitApp":"a,b","strategy":1}`, i)
	}
	sb.WriteString(`],"paramFlow":[`)
	for i := range 999 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"resource":"resource-%d","paramIdx":0,"count":5}`, i)
	}
	sb.WriteString(`],"system":[{"qps":1000}]}`)
	doc := []byte(sb.String())
	runtime.SetLogger(slog.New(slog.DiscardHandler)) // the system package logs each load
	defer runtime.SetLogger(nil)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if n, err := datasource.Load("rules.json", doc, datasource.Combined); err != nil || n != 10_000 {
			b.Fatal(n, err)
		}
	}
	b.StopTimer()
	clearAll(b)
}

// BenchmarkDecodeJavaShapes10000 is BenchmarkDecode10000 for a document
// written as Java's parsers read it (a comment, quoted counts, whole
// decimals): the path that parses with hujson and coerces, with a warning
// per coercion (kept up to datasource.MaxWarnings).
func BenchmarkDecodeJavaShapes10000(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("// flow rules\n[")
	for i := range 10_000 {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"resource":"resource-%d","limitApp":"default","grade":"1","count":"%d","controlBehavior":0.0}`, i, 10+i%100)
	}
	sb.WriteString("]")
	doc := []byte(sb.String())
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		rs, err := datasource.Flow.Decode("flow.json", doc)
		if err != nil || rs.Len() != 10_000 {
			b.Fatal(err)
		}
	}
}
