package generator

import (
	"go/token"
	"go/types"
)

// resultsHoldLocks reports whether a result of sig holds a lock by value,
// by go vet's copylocks rule: a struct (or array of one) whose pointer is
// a sync.Locker and whose value is not, or that holds such a struct in a
// field. Vet forbids copying such a value from a variable ("return copies
// lock value"); returning a call's result, a composite literal, or
// nothing (named results) is allowed.
func resultsHoldLocks(sig *types.Signature) bool {
	for v := range sig.Results().Variables() {
		if holdsLock(v.Type(), map[types.Type]bool{}) {
			return true
		}
	}
	return false
}

func holdsLock(t types.Type, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		return constraintHoldsLock(tp.Constraint(), seen)
	}
	for {
		a, ok := t.Underlying().(*types.Array)
		if !ok {
			break
		}
		t = a.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false // pointers, interfaces, maps, ... copy no lock
	}
	if types.Implements(types.NewPointer(t), lockerType) && !types.Implements(t, lockerType) {
		return true
	}
	if isNamed(t, "sync", "noCopy") {
		return true
	}
	for f := range s.Fields() {
		if holdsLock(f.Type(), seen) {
			return true
		}
	}
	return false
}

// constraintHoldsLock reports whether a type term of a type parameter's
// constraint holds a lock (func f[T ~struct{ sync.Mutex }]).
func constraintHoldsLock(c types.Type, seen map[types.Type]bool) bool {
	iface, ok := c.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				if holdsLock(e.Term(j).Type(), seen) {
					return true
				}
			}
		default:
			if _, isIface := e.Underlying().(*types.Interface); isIface {
				if constraintHoldsLock(e, seen) {
					return true
				}
			} else if holdsLock(e, seen) {
				return true
			}
		}
	}
	return false
}

// lockerType is sync.Locker, built here so that the annotated package
// need not import sync.
var lockerType = func() *types.Interface {
	nullary := types.NewSignatureType(nil, nil, nil, nil, nil, false)
	return types.NewInterfaceType([]*types.Func{
		types.NewFunc(token.NoPos, nil, "Lock", nullary),
		types.NewFunc(token.NoPos, nil, "Unlock", nullary),
	}, nil).Complete()
}()
