package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const output = `goos: linux
pkg: github.com/sentinelgen/sentinelgen/bench/compare
BenchmarkFloor/path=alloc128/impl=floor-2   	 1000	   110.0 ns/op	   100.0 cpu-ns/op	     128 B/op	       1 allocs/op
BenchmarkCore/path=admitted/impl=ours-2     	 1000	   220.0 ns/op	   200.0 cpu-ns/op	     128 B/op	       1 allocs/op
BenchmarkCore/path=admitted/impl=ours-2     	 1000	   260.0 ns/op	   240.0 cpu-ns/op	     128 B/op	       1 allocs/op
BenchmarkCore/path=admitted/impl=ours-2     	 1000	   900.0 ns/op	   800.0 cpu-ns/op	     128 B/op	       1 allocs/op
BenchmarkCore/path=admitted/impl=enter-2    	 1000	    60.0 ns/op	    50.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkCore/path=admitted/impl=theirs-2   	 1000	  2500.0 ns/op	  2400.0 cpu-ns/op	     900 B/op	      13 allocs/op
BenchmarkGin/path=admitted/impl=bare-2      	 1000	   150.0 ns/op	   100.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkGin/path=admitted/impl=ours-2      	 1000	   650.0 ns/op	   600.0 cpu-ns/op	      64 B/op	       1 allocs/op
BenchmarkGin/path=admitted/impl=theirs-2    	 1000	  2100.0 ns/op	  2100.0 cpu-ns/op	     900 B/op	      14 allocs/op
BenchmarkGin/path=refused/impl=ours-2       	 1000	   100.0 ns/op	   100.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkGin/path=refused/impl=theirs-2     	 1000	  1100.0 ns/op	  1100.0 cpu-ns/op	     900 B/op	      12 allocs/op
BenchmarkGin/not-a-case-2                   	 1000	   100.0 ns/op
PASS
`

func TestParseTakesCasesAndTheirUnits(t *testing.T) {
	runs := parse(strings.NewReader(output))
	require.Len(t, runs, 11)
	assert.Equal(t, run{bench: "Floor", path: "alloc128", impl: "floor",
		values: map[string]float64{"ns/op": 110, "cpu-ns/op": 100, "B/op": 128, "allocs/op": 1}}, runs[0])
}

func TestSummarizeTakesMedians(t *testing.T) {
	s := summarize(parse(strings.NewReader(output)))
	assert.Equal(t, 240.0, s.medians[key{"Core", "admitted", "ours"}]["cpu-ns/op"])
	assert.Equal(t, []string{"Floor", "Core", "Gin"}, s.benches)
	assert.Equal(t, []string{"admitted", "refused"}, s.paths["Gin"])
	assert.Equal(t, 3.0, median([]float64{4, 2, 3, 1}[:3]))
	assert.Equal(t, 2.5, median([]float64{4, 2, 3, 1}))
}

func TestWriteGivesRatios(t *testing.T) {
	var buf bytes.Buffer
	write(&buf, summarize(parse(strings.NewReader(output))), "cpu-ns/op")
	got := buf.String()
	// The core: Enter and Entry each against the floor, and theirs over each.
	assert.Contains(t, got, "| Core | admitted | 100 ns, 128 B, 1 | 50 ns, 0 B, 0 | 240 ns, 128 B, 1 | 2,400 ns, 900 B, 13 | 0.5x | 2.4x | 48.0x | 10.0x |")
	// A framework: what each adds over bare, and the ratio of those.
	assert.Contains(t, got, "| Gin | admitted | 100 ns, 0 B, 0 | 600 ns, 64 B, 1 | 2,100 ns, 900 B, 14 | +500 ns, +64 B, +1 | +2,000 ns, +900 B, +14 | 4.0x |")
	// Ours adding nothing measurable has no ratio.
	assert.Contains(t, got, "| Gin | refused | 100 ns, 0 B, 0 | 100 ns, 0 B, 0 | 1,100 ns, 900 B, 12 | +0 ns, +0 B, +0 | +1,000 ns, +900 B, +12 | n/a |")
	assert.Contains(t, got, "| Floor | alloc128 | 100 ns, 128 B, 1 | | | | | | | |")
	assert.Equal(t, "n/a", ratio(-1, 2))
	assert.Equal(t, "n/a", ratio(2, 0))
	assert.Equal(t, "0.5x", ratio(1, 2))
	assert.NotContains(t, got, "not-a-case")
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 12.25: "12.2", 99.96: "100.0", 128: "128", 1234.4: "1,234", 1234567: "1,234,567", -1500: "-1,500"} {
		assert.Equal(t, want, number(v), "%v", v)
	}
}
