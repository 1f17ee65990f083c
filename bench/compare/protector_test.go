package compare

import "testing"

// protector is one implementation under comparison: how it loads rules and
// enters a resource. Its adapters for each framework are listed beside
// that framework's benchmark, by the protector's name.
type protector struct {
	name string
	// admitting loads, on each resource, a flow rule that admits every
	// call and a closed breaker; admittingFlow, the flow rule alone;
	// refusing, a flow rule that refuses every call. Each holds until the
	// benchmark ends, and replaces the others.
	admitting     func(tb testing.TB, resources ...string)
	admittingFlow func(tb testing.TB, resources ...string)
	refusing      func(tb testing.TB, resources ...string)
	// enter returns one call of resource: Entry, and Exit when admitted;
	// it reports whether the call was admitted.
	enter func(resource string) func() bool
}

// protectors are those this binary compares: ours through Entry ("ours")
// and through Enter ("enter"), and sentinel-golang's ("theirs") with the
// sentinelgolang build tag.
var protectors = []protector{ours, oursEnter}

// protectorNamed is the protector of that name.
func protectorNamed(name string) protector {
	for _, p := range protectors {
		if p.name == name {
			return p
		}
	}
	panic("no protector " + name)
}

// Every protector does what the benchmarks say it does: the admitting
// rules admit, the refusing ones refuse. (The benchmarks themselves run
// only from bench/compare.sh.)
func TestRulesAdmitAndRefuseAsTheBenchmarksSay(t *testing.T) {
	for _, p := range protectors {
		t.Run(p.name, func(t *testing.T) {
			p.admitting(t, "compare-test-admitted")
			if !p.enter("compare-test-admitted")() {
				t.Error("admitting rules refused")
			}
			p.refusing(t, "compare-test-refused")
			if p.enter("compare-test-refused")() {
				t.Error("refusing rule admitted")
			}
		})
	}
}
