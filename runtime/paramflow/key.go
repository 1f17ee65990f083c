package paramflow

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Keyer is implemented by argument types that supply their own hot-parameter
// key (Java's ParamFlowArgument): the rule limits and matches items by
// ParamKey's result instead of the argument. A nil key is not limited.
// ParamKey must return the same key when the call exits as when it
// entered (thread grade releases by key).
type Keyer interface {
	ParamKey() any
}

type keyKind uint8

const (
	kindInt    keyKind = iota + 1 // every Go integer kind up to MaxInt64, as int64
	kindUint                      // unsigned values above MaxInt64
	kindFloat                     // float32 and float64, as float64 bits
	kindBool                      //
	kindString                    //
	kindAny                       // other comparable values: pointers, channels, plain structs
)

// key is a normalized argument value: the map key of per-value state and
// item limits. Building one for an integer or a string allocates nothing.
type key struct {
	kind keyKind
	n    uint64
	s    string
	a    any
}

func intKey(i int64) key { return key{kind: kindInt, n: uint64(i)} }

func uintKey(u uint64) key {
	if u > math.MaxInt64 {
		return key{kind: kindUint, n: u}
	}
	return key{kind: kindInt, n: u}
}

func floatKey(f float64) key { return key{kind: kindFloat, n: math.Float64bits(f)} }

func boolKey(b bool) key {
	if b {
		return key{kind: kindBool, n: 1}
	}
	return key{kind: kindBool}
}

// maxKeyBytes bounds the bytes a string value takes in per-value state:
// callers choose argument values, and a cache holds up to maxCapacity of
// them. A longer value is kept as its first bytes and a digest of the
// whole, so distinct long values stay distinct and the digest is the same
// in every process (cluster rules send keys to Redis).
const maxKeyBytes = 128

func stringKey(s string) key {
	if len(s) > maxKeyBytes {
		s = longKey(s)
	}
	return key{kind: kindString, s: s}
}

// longKey shortens s to maxKeyBytes: a copy of its start, "#", and 128
// bits of its SHA-256 in hex. The copy lets the caller's string go.
func longKey(s string) string {
	sum := sha256.Sum256([]byte(s))
	const digest = 1 + 2*16
	return s[:maxKeyBytes-digest] + "#" + hex.EncodeToString(sum[:16])
}

// scalarKey normalizes one value. ok is false for nil and for values that
// cannot be keyed (slices, maps, funcs, structs holding those), which are
// not limited.
func scalarKey(v any) (k key, ok bool) {
	switch x := v.(type) {
	case nil:
		return key{}, false
	case int:
		return intKey(int64(x)), true
	case int64:
		return intKey(x), true
	case string:
		return stringKey(x), true
	case int32:
		return intKey(int64(x)), true
	case int16:
		return intKey(int64(x)), true
	case int8:
		return intKey(int64(x)), true
	case uint8:
		return intKey(int64(x)), true
	case uint16:
		return intKey(int64(x)), true
	case uint32:
		return intKey(int64(x)), true
	case uint:
		return uintKey(uint64(x)), true
	case uint64:
		return uintKey(x), true
	case uintptr:
		return uintKey(uint64(x)), true
	case float64:
		return floatKey(x), true
	case float32:
		return floatKey(float64(x)), true
	case bool:
		return boolKey(x), true
	}
	return reflectKey(reflect.ValueOf(v), v)
}

// reflectKey keys named types by their underlying kind (type OrderID
// int64 matches int items) and other comparable values by identity.
func reflectKey(rv reflect.Value, v any) (key, bool) {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intKey(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintKey(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return floatKey(rv.Float()), true
	case reflect.Bool:
		return boolKey(rv.Bool()), true
	case reflect.String:
		return stringKey(rv.String()), true
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
		if v == nil {
			v = rv.Interface()
		}
		return key{kind: kindAny, a: v}, true
	case reflect.Struct, reflect.Array:
		if safelyComparable(rv.Type()) {
			if v == nil {
				v = rv.Interface()
			}
			return key{kind: kindAny, a: v}, true
		}
	}
	warnUnkeyable(rv)
	return key{}, false
}

var comparableTypes sync.Map // reflect.Type -> bool

// safelyComparable reports whether values of t can be map keys without a
// run-time panic: comparable, and holding no interface (whose dynamic value
// might not be comparable).
func safelyComparable(t reflect.Type) bool {
	if v, ok := comparableTypes.Load(t); ok {
		return v.(bool)
	}
	ok := t.Comparable() && !holdsInterface(t, 0)
	comparableTypes.Store(t, ok)
	return ok
}

func holdsInterface(t reflect.Type, depth int) bool {
	if depth > 32 {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return holdsInterface(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsInterface(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

var unkeyableWarned atomic.Bool

func warnUnkeyable(rv reflect.Value) {
	if unkeyableWarned.CompareAndSwap(false, true) {
		t := "nil"
		if rv.IsValid() {
			t = rv.Type().String()
		}
		runtime.Logger().Warn("sentinel: a hot-parameter argument cannot be keyed and is not limited (implement paramflow.Keyer)", "type", t)
	}
}

// MaxValuesPerCall bounds the values of one list argument that a rule
// checks, as the Redis path bounds those it sends (runtime/cluster's
// Config.MaxParamValues, 100 by default). A slice or array argument with
// more elements is refused whole by every rule that reads it, without
// looking at its elements: checking only some would let a value the rule
// counts ride past its limit behind them, and checking them all costs
// time linear in a length the caller chooses and creates as many values,
// enough to push the values a rule counts out of its bounded state.
const MaxValuesPerCall = 100

// appendKeys appends the keys arg stands for, after applying Keyer: one
// for a single value, one per element of a slice or array (each element
// must pass). nil, empty lists and values that cannot be keyed add none,
// and are not limited. A list of more than MaxValuesPerCall elements adds
// none and reports !ok.
func appendKeys(dst []key, arg any) (_ []key, ok bool) {
	// The common argument types first: they cannot implement Keyer.
	switch xs := arg.(type) {
	case nil:
		return dst, true
	case int:
		return append(dst, intKey(int64(xs))), true
	case int64:
		return append(dst, intKey(xs)), true
	case string:
		return append(dst, stringKey(xs)), true
	case Keyer:
		arg = paramKey(xs)
	}
	switch xs := arg.(type) {
	case nil:
		return dst, true
	case []int:
		if len(xs) > MaxValuesPerCall {
			return dst, false
		}
		for _, x := range xs {
			dst = append(dst, intKey(int64(x)))
		}
		return dst, true
	case []int64:
		if len(xs) > MaxValuesPerCall {
			return dst, false
		}
		for _, x := range xs {
			dst = append(dst, intKey(x))
		}
		return dst, true
	case []string:
		if len(xs) > MaxValuesPerCall {
			return dst, false
		}
		for _, x := range xs {
			dst = append(dst, stringKey(x))
		}
		return dst, true
	case []any:
		if len(xs) > MaxValuesPerCall {
			return dst, false
		}
		for _, x := range xs {
			dst = appendElem(dst, x)
		}
		return dst, true
	}
	rv := reflect.ValueOf(arg)
	if k := rv.Kind(); k != reflect.Slice && k != reflect.Array {
		if k, ok := scalarKey(arg); ok {
			dst = append(dst, k)
		}
		return dst, true
	}
	if rv.Len() > MaxValuesPerCall {
		return dst, false
	}
	for i := range rv.Len() {
		e := rv.Index(i)
		if e.Kind() == reflect.Interface || e.Type().Implements(keyerType) {
			dst = appendElem(dst, e.Interface())
		} else if k, ok := reflectKey(e, nil); ok {
			dst = append(dst, k)
		}
	}
	return dst, true
}

var tooManyWarned atomic.Bool

// warnTooMany logs, once, that list argument arg (index idx) was refused
// for its length.
func warnTooMany(resource string, idx int, arg any) {
	if tooManyWarned.CompareAndSwap(false, true) {
		runtime.Logger().Warn("sentinel: a hot-parameter list argument with more values than a rule checks in one call is refused",
			"resource", safetext.Name(resource), "paramIdx", idx, "values", listLen(arg), "max", MaxValuesPerCall)
	}
}

// listLen is the length of a slice or array argument, 0 for others.
func listLen(arg any) int {
	if kr, ok := arg.(Keyer); ok {
		arg = paramKey(kr)
	}
	if rv := reflect.ValueOf(arg); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		return rv.Len()
	}
	return 0
}

var keyerType = reflect.TypeFor[Keyer]()

var keyerPanicWarned atomic.Bool

// paramKey calls k.ParamKey. A panicking ParamKey (a nil pointer whose
// type has a value-receiver ParamKey, say) leaves the value unlimited
// instead of failing the call; a warning is logged once.
func paramKey(k Keyer) (v any) {
	defer func() {
		if p := recover(); p != nil {
			v = nil
			if keyerPanicWarned.CompareAndSwap(false, true) {
				runtime.Logger().Warn("sentinel: a hot-parameter argument's ParamKey panicked; the value is not limited",
					"type", reflect.TypeOf(k).String(), "panic", p)
			}
		}
	}()
	return k.ParamKey()
}

// appendElem keys one element of a list. Lists nested in lists cannot be
// keyed and are not limited.
func appendElem(dst []key, x any) []key {
	if kr, ok := x.(Keyer); ok {
		x = paramKey(kr)
	}
	if k, ok := scalarKey(x); ok {
		dst = append(dst, k)
	}
	return dst
}
