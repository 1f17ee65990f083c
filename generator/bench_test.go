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

// BenchmarkGenerateScale measures the generator's own work (gen-ms/op,
// packages.Load excluded) on one package of 1,000, 5,000 and 10,000
// method directives: it must grow linearly, so gen-ms/op per directive
// (gen-us/directive) stays flat.
func BenchmarkGenerateScale(b *testing.B) {
	for _, n := range []int{1000, 5000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			mod := scalePackage(b, n)
			var gen time.Duration
			runs := 0
			for b.Loop() {
				res, err := Generate(Config{Dir: mod, Patterns: []string{"./large"}, Env: moduleEnv()})
				if err != nil {
					b.Fatal(err)
				}
				if errs := res.Errors(); len(errs) > 0 {
					b.Fatal(errs.Err())
				}
				gen += res.Timing.Generate
				runs++
			}
			b.ReportMetric(float64(gen.Microseconds())/1000/float64(runs), "gen-ms/op")
			b.ReportMetric(float64(gen.Microseconds())/float64(runs)/float64(n), "gen-us/directive")
		})
	}
}

// scalePackage writes a package of n directives, ten files of n/10, half
// on functions and half on methods with a block handler and ignore=: a
// package block of many names and many method directives, which is what
// a per-directive scan of the package block makes quadratic.
func scalePackage(tb testing.TB, n int) string {
	mod := caseModule(tb)
	for f := range 10 {
		var b strings.Builder
		fmt.Fprintf(&b, "package large\n\nimport (\n\t\"context\"\n\t\"errors\"\n\n\t\"github.com/sentinelgen/sentinelgen/runtime\"\n)\n\n")
		fmt.Fprintf(&b, "var ErrSkip%d = errors.New(\"skip\")\n\ntype Svc%d struct{}\n\ntype Outer%d struct{ *Svc%d }\n\n", f, f, f, f)
		for m := range n / 20 {
			fmt.Fprintf(&b, "//sentinel:resource ignore=ErrSkip%d\n", f)
			fmt.Fprintf(&b, "func find%d_%d(ctx context.Context, id int64) (string, error) { return \"\", nil }\n\n", f, m)
			fmt.Fprintf(&b, "//sentinel:resource blockHandler=onBlock%d ignore=ErrSkip%d\n", m, f)
			fmt.Fprintf(&b, "func (s *Svc%d) get%d(ctx context.Context, id int64, name string) (string, error) { return name, nil }\n\n", f, m)
			fmt.Fprintf(&b, "func (s *Svc%d) onBlock%d(ctx context.Context, id int64, name string, b *runtime.BlockError) (string, error) { return \"\", b }\n\n", f, m)
		}
		writeFile(tb, filepath.Join(mod, "large", fmt.Sprintf("svc%d.go", f)), []byte(b.String()))
	}
	return mod
}
