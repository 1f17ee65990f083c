package generator

import (
	"go/types"
	"sort"
	"strconv"
)

// namer hands out identifiers that shadow nothing the generated code
// refers to. Generated code lives beside the user's: a parameter named
// runtime or err, a package-level var named fmt, must not break it.
type namer struct {
	reserved []map[string]bool // read, never copied: the package block is large
	taken    map[string]bool
}

func newNamer(reserved ...map[string]bool) *namer {
	return &namer{reserved: reserved, taken: map[string]bool{}}
}

func (n *namer) isTaken(name string) bool {
	if n.taken[name] {
		return true
	}
	for _, m := range n.reserved {
		if m[name] {
			return true
		}
	}
	return false
}

// fresh returns base, or base with the smallest numeric suffix, that is
// not taken, and takes it.
func (n *namer) fresh(base string) string {
	name := base
	for i := 1; n.isTaken(name); i++ {
		name = base + strconv.Itoa(i)
	}
	n.taken[name] = true
	return name
}

// predeclared are the universe names generated bodies use; a type
// parameter named like one is renamed in the wrapper.
var predeclared = set("nil", "true", "false", "new", "panic", "recover", "error", "any")

// universe is every predeclared name. A wrapper's locals avoid them all,
// not only those its statements use: the types it writes (var r0 [2]int)
// may name any of them, and a parameter called int must not shadow it.
var universe = set(types.Universe.Names()...)

// importAliases names each imported package for one generated file: its
// own name where that is free, else the name with a numeric suffix. Names
// declared at package level are never free (a file's import may not share
// a name with the package block), nor another import's, nor a type
// parameter's of a wrapper in the file (it would shadow the import inside
// the wrapper).
func importAliases(pkgs map[string]string, packageNames, typeParams map[string]bool) map[string]string {
	paths := make([]string, 0, len(pkgs))
	for p := range pkgs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	n := newNamer(packageNames, typeParams, set("_", "."))
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		out[p] = n.fresh(pkgs[p])
	}
	return out
}
