package datasource_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func ruleDoc(n int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"resource":"resource-%d","limitApp":"default","grade":1,"count":%d,"controlBehavior":0}`, i, 10+i%100)
	}
	b.WriteString("]")
	return []byte(b.String())
}

// BenchmarkLoadFake10000 is decode + validate + load of 10,000 rules of
// the test kind (the real kinds' figures are in kinds_bench_test.go).
func BenchmarkLoadFake10000(b *testing.B) {
	doc := ruleDoc(10_000)
	m := fakerules.New("flow")
	k := m.Kind()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := datasource.Load("flow.json", doc, k); err != nil {
			b.Fatal(err)
		}
	}
}
