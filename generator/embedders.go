package generator

import "go/types"

// embedder is a struct type that embeds another, depth embedded fields
// deep (1: a field of its own).
type embedder struct {
	outer *types.Named
	depth int
}

// embedderIndex maps each named type (its origin) to the package's struct
// types that embed it. It is built once per package, from one pass over
// the package block, so that checking a method wrapper against the types
// embedding its receiver costs what those types cost, not the whole
// package block again.
type embedderIndex map[*types.Named][]embedder

func indexEmbedders(pkg *types.Package) embedderIndex {
	idx := embedderIndex{}
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		outer, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		walkEmbedded(outer, func(e *types.Named, depth int) {
			idx[e] = append(idx[e], embedder{outer: outer, depth: depth})
		})
	}
	return idx
}

// walkEmbedded calls visit for each named type outer embeds (its origin,
// through pointers), breadth first, with the depth it is first found at,
// up to 8 deep.
func walkEmbedded(outer *types.Named, visit func(e *types.Named, depth int)) {
	seen := map[*types.Named]bool{outer.Origin(): true}
	level := []*types.Named{outer}
	for depth := 1; len(level) > 0 && depth <= 8; depth++ {
		var next []*types.Named
		for _, n := range level {
			st, ok := n.Underlying().(*types.Struct)
			if !ok {
				continue
			}
			for f := range st.Fields() {
				if !f.Embedded() {
					continue
				}
				t := types.Unalias(f.Type())
				if p, ok := t.(*types.Pointer); ok {
					t = types.Unalias(p.Elem())
				}
				e, ok := t.(*types.Named)
				if !ok || seen[e.Origin()] {
					continue
				}
				seen[e.Origin()] = true
				visit(e.Origin(), depth)
				next = append(next, e)
			}
		}
		level = next
	}
}
