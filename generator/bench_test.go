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

// BenchmarkGenerateRun measures whole runs (Generate: go list, parsing,
// type-checking and the generator's own work) on one package of 2,500,
// 5,000 and 10,000 directives (scalePackage), with the build cache warm:
// one run before the timer compiles what go list -export asks for. Besides
// ns/op and B/op it reports load-ms/op and gen-ms/op (packages.Load and
// the rest), ms/1k-directives (which stays flat while the run is linear)
// and, on linux, peak-RSS-MB: the largest peak resident set size of one
// run, measured from the live heap before it (the go command's own
// processes not included).
func BenchmarkGenerateRun(b *testing.B) {
	for _, n := range []int{2500, 5000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			mod := scalePackage(b, n)
			cfg := Config{Dir: mod, Patterns: []string{"./large"}, Env: moduleEnv()}
			run := func() *Result {
				res, err := Generate(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if p := res.Packages[0]; len(p.Errors) > 0 || len(p.Files) != 10 {
					b.Fatal(p.Errors.Err(), len(p.Files))
				}
				return res
			}
			run()
			b.ReportAllocs()
			var load, gen time.Duration
			var peak uint64
			peakOK := true
			for b.Loop() {
				b.StopTimer()
				peakOK = peakOK && resetPeakRSS()
				b.StartTimer()
				res := run()
				load += res.Timing.Load
				gen += res.Timing.Generate
				if rss, ok := peakRSS(); ok {
					peak = max(peak, rss)
				} else {
					peakOK = false
				}
			}
			runs := float64(b.N)
			b.ReportMetric(float64(load.Milliseconds())/runs, "load-ms/op")
			b.ReportMetric(float64(gen.Milliseconds())/runs, "gen-ms/op")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/runs/float64(n)*1000, "ms/1k-directives")
			if peakOK {
				b.ReportMetric(float64(peak>>20), "peak-RSS-MB")
			}
		})
	}
}

// BenchmarkGenerateScale measures the generator's own work on one
// package of 1,000, 5,000 and 10,000 directives: the package is loaded
// once, outside the timer, and each iteration resolves, checks and emits
// it (generatePackage), so that ns/op is the generator's work alone, free
// of packages.Load. It must grow linearly: ns/directive (and the CPU
// time, cpu-ns/directive, steadier on a shared machine) stays flat.
func BenchmarkGenerateScale(b *testing.B) {
	for _, n := range []int{1000, 5000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			mod := scalePackage(b, n)
			cfg := Config{Dir: mod, Patterns: []string{"./large"}, Env: moduleEnv()}
			pkgs, err := load(cfg)
			if err != nil || len(pkgs) != 1 {
				b.Fatal(err, len(pkgs))
			}
			b.ReportAllocs()
			cpu0, cpuOK := cpuTime()
			for b.Loop() {
				p := generatePackage(cfg, pkgs[0], newRunState(cfg))
				if len(p.Errors) > 0 || len(p.Files) != 10 {
					b.Fatal(p.Errors.Err(), len(p.Files))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/directive")
			if cpu1, ok := cpuTime(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/directive")
			}
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
