// Command table reads the output of bench/compare's benchmarks (go test
// -bench, any number of runs of each case, from several test binaries
// concatenated) and prints, as a Markdown table, the median of each case
// for each implementation and the ratios the comparison is about:
//
//	go run ./table bench-compare.txt
//
// Cases are named Benchmark<Name>/path=<path>/impl=<impl>. For a
// framework (a benchmark with an impl=bare case: the framework with a
// middleware that does nothing) a row gives what each adapter adds over
// bare, and the ratio of sentinel-golang's addition to ours. The core (the
// benchmarks without a bare case) has a table of its own, with a column
// for each of our two ways in, Enter (impl=enter) and Entry (impl=ours):
// each against the floor, and sentinel-golang's cost over each.
//
// Times are CPU time per op (cpu-ns/op, the process's CPU, GC included)
// where the benchmarks report it, else wall time (ns/op); -metric picks
// another. A ratio is "n/a" where an adapter adds nothing measurable.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	metric := flag.String("metric", "cpu-ns/op", "the time to compare, falling back to ns/op where absent")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: table [-metric unit] [file...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	var runs []run
	if flag.NArg() == 0 {
		runs = parse(os.Stdin)
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		runs = append(runs, parse(f)...)
		f.Close()
	}
	if len(runs) == 0 {
		fmt.Fprintln(os.Stderr, "table: no benchmark results")
		os.Exit(1)
	}
	write(os.Stdout, summarize(runs), *metric)
}

// run is one result line: a case and its figures by unit.
type run struct {
	bench, path, impl string
	values            map[string]float64
}

// parse reads the result lines of go test -bench output, skipping other
// lines and cases not named path=<path>/impl=<impl>.
func parse(r io.Reader) []run {
	var runs []run
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := fields[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i] // the GOMAXPROCS suffix
			}
		}
		parts := strings.Split(strings.TrimPrefix(name, "Benchmark"), "/")
		if len(parts) != 3 || !strings.HasPrefix(parts[1], "path=") || !strings.HasPrefix(parts[2], "impl=") {
			continue
		}
		rn := run{bench: parts[0], path: strings.TrimPrefix(parts[1], "path="),
			impl: strings.TrimPrefix(parts[2], "impl="), values: map[string]float64{}}
		for i := 2; i+1 < len(fields); i += 2 { // fields[1] is the iteration count
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			rn.values[fields[i+1]] = v
		}
		runs = append(runs, rn)
	}
	return runs
}

// key names a case.
type key struct{ bench, path, impl string }

// summary holds the median of each case's figures by unit, and the
// benchmarks and paths in the order they first appear.
type summary struct {
	medians map[key]map[string]float64
	benches []string
	paths   map[string][]string
}

func summarize(runs []run) summary {
	all := map[key]map[string][]float64{}
	s := summary{medians: map[key]map[string]float64{}, paths: map[string][]string{}}
	for _, r := range runs {
		k := key{r.bench, r.path, r.impl}
		if all[k] == nil {
			all[k] = map[string][]float64{}
		}
		for unit, v := range r.values {
			all[k][unit] = append(all[k][unit], v)
		}
		if !slices.Contains(s.benches, r.bench) {
			s.benches = append(s.benches, r.bench)
		}
		if !slices.Contains(s.paths[r.bench], r.path) {
			s.paths[r.bench] = append(s.paths[r.bench], r.path)
		}
	}
	for k, units := range all {
		s.medians[k] = map[string]float64{}
		for unit, vs := range units {
			s.medians[k][unit] = median(vs)
		}
	}
	return s
}

func median(vs []float64) float64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// figures is one case's medians: time in the chosen metric, bytes and
// allocations per op.
type figures struct {
	ok                  bool
	time, bytes, allocs float64
}

func (s summary) figures(k key, metric string) figures {
	m, ok := s.medians[k]
	if !ok {
		return figures{}
	}
	t, ok := m[metric]
	if !ok {
		t = m["ns/op"]
	}
	return figures{ok: true, time: t, bytes: m["B/op"], allocs: m["allocs/op"]}
}

func (f figures) String() string {
	if !f.ok {
		return ""
	}
	return fmt.Sprintf("%s ns, %s B, %s", number(f.time), number(f.bytes), number(f.allocs))
}

// added is what f adds to base.
func (f figures) added(base figures) string {
	if !f.ok || !base.ok {
		return ""
	}
	return fmt.Sprintf("%s ns, %s B, %s", signed(f.time-base.time), signed(f.bytes-base.bytes), signed(f.allocs-base.allocs))
}

// ratio is a/b, "n/a" unless both are positive (an addition lost in the
// framework's noise).
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1fx", a/b)
}

func write(w io.Writer, s summary, metric string) {
	fmt.Fprintf(w, "Medians; times in %s (ns/op where absent); each cell: time, B/op, allocs/op.\n\n", metric)
	floor := s.figures(key{"Floor", "alloc128", "floor"}, metric)
	var core, frameworks []string
	for _, b := range s.benches {
		if _, ok := s.medians[key{b, "admitted", "bare"}]; ok {
			frameworks = append(frameworks, b)
		} else {
			core = append(core, b)
		}
	}
	if len(core) > 0 {
		fmt.Fprintln(w, "| benchmark | path | floor | enter (Enter) | ours (Entry) | theirs | Enter / floor | Entry / floor | theirs / Enter | theirs / Entry |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
		for _, b := range core {
			for _, p := range s.paths[b] {
				enter := s.figures(key{b, p, "enter"}, metric)
				ours := s.figures(key{b, p, "ours"}, metric)
				theirs := s.figures(key{b, p, "theirs"}, metric)
				if !enter.ok && !ours.ok && !theirs.ok {
					if f := s.figures(key{b, p, "floor"}, metric); f.ok {
						fmt.Fprintf(w, "| %s | %s | %s | | | | | | | |\n", b, p, f)
					}
					continue
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", b, p, floor, enter, ours, theirs,
					ratioOf(enter, floor), ratioOf(ours, floor), ratioOf(theirs, enter), ratioOf(theirs, ours))
			}
		}
	}
	if len(frameworks) > 0 {
		if len(core) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "| benchmark | path | bare (no-op middleware) | ours | theirs | ours adds | theirs adds | theirs / ours (of what each adds) |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
		for _, b := range frameworks {
			bare := s.figures(key{b, "admitted", "bare"}, metric)
			for _, p := range s.paths[b] {
				ours := s.figures(key{b, p, "ours"}, metric)
				theirs := s.figures(key{b, p, "theirs"}, metric)
				if !ours.ok && !theirs.ok {
					continue // the bare case, on its adapters' rows
				}
				var r string
				if ours.ok && theirs.ok {
					r = ratio(theirs.time-bare.time, ours.time-bare.time)
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", b, p, bare, ours, theirs, ours.added(bare), theirs.added(bare), r)
			}
		}
	}
}

// ratioOf is a's time over b's, "" unless both were measured.
func ratioOf(a, b figures) string {
	if !a.ok || !b.ok {
		return ""
	}
	return ratio(a.time, b.time)
}

// number formats v with thousands separators, one decimal below 100.
func number(v float64) string {
	if v < 0 {
		return "-" + number(-v)
	}
	if v < 100 && v != float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func signed(v float64) string {
	if v < 0 {
		return number(v)
	}
	return "+" + number(v)
}
