package generator

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// largePackage writes a package of n annotated methods, ten files of n/10,
// each with a block handler, a fallback and ignore= (every check runs),
// into a case module, and returns the module's directory.
func largePackage(tb testing.TB, n int) string {
	mod := caseModule(tb)
	for f := range 10 {
		var b strings.Builder
		fmt.Fprintf(&b, "package large\n\nimport (\n\t\"context\"\n\t\"errors\"\n\n\t\"github.com/sentinelgen/sentinelgen/runtime\"\n)\n\n")
		fmt.Fprintf(&b, "var ErrSkip%d = errors.New(\"skip\")\n\ntype Svc%d struct{}\n\n", f, f)
		for m := range n / 10 {
			fmt.Fprintf(&b, "//sentinel:resource blockHandler=onBlock%d fallback=fallback%d ignore=ErrSkip%d\n", m, m, f)
			fmt.Fprintf(&b, "func (s *Svc%d) get%d(ctx context.Context, id int64, name string) (string, error) { return name, nil }\n\n", f, m)
			fmt.Fprintf(&b, "func (s *Svc%d) onBlock%d(ctx context.Context, id int64, name string, b *runtime.BlockError) (string, error) { return \"\", b }\n\n", f, m)
			fmt.Fprintf(&b, "func (s *Svc%d) fallback%d(ctx context.Context, id int64, name string, err error) (string, error) { return \"\", err }\n\n", f, m)
		}
		writeFile(tb, filepath.Join(mod, "large", fmt.Sprintf("svc%d.go", f)), []byte(b.String()))
	}
	return mod
}

// BenchmarkGenerate200 measures a run on a package of 200 annotated
// methods, split into packages.Load (load-ms/op) and the generator's own
// work (gen-ms/op): the time belongs in the former.
func BenchmarkGenerate200(b *testing.B) {
	mod := largePackage(b, 200)
	var load, gen time.Duration
	runs := 0
	for b.Loop() {
		res, err := Generate(Config{Dir: mod, Patterns: []string{"./large"}, Env: moduleEnv()})
		if err != nil {
			b.Fatal(err)
		}
		if errs := res.Errors(); len(errs) > 0 {
			b.Fatal(errs.Err())
		}
		if n := len(res.Packages[0].Files); n != 10 {
			b.Fatalf("%d files", n)
		}
		load += res.Timing.Load
		gen += res.Timing.Generate
		runs++
	}
	b.ReportMetric(float64(load.Milliseconds())/float64(runs), "load-ms/op")
	b.ReportMetric(float64(gen.Microseconds())/1000/float64(runs), "gen-ms/op")
}

// BenchmarkGenerateOrderService measures a run on the example service
// (nothing is written: Generate only returns files).
func BenchmarkGenerateOrderService(b *testing.B) {
	var load, gen time.Duration
	runs := 0
	for b.Loop() {
		res, err := Generate(Config{Patterns: []string{"../examples/orderservice"}})
		if err != nil {
			b.Fatal(err)
		}
		if errs := res.Errors(); len(errs) > 0 {
			b.Fatal(errs.Err())
		}
		load += res.Timing.Load
		gen += res.Timing.Generate
		runs++
	}
	b.ReportMetric(float64(load.Milliseconds())/float64(runs), "load-ms/op")
	b.ReportMetric(float64(gen.Microseconds())/1000/float64(runs), "gen-ms/op")
}
