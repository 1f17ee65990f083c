package runtime

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
)

// DefaultContextName is the context of calls made outside any EnterContext
// (Java's Constants.CONTEXT_DEFAULT_NAME).
const DefaultContextName = "sentinel_default_context"

// MaxContexts caps the number of context names (Java's
// MAX_CONTEXT_NAME_SIZE). Calls in contexts past the cap pass unchecked.
const MaxContexts = 2000

// sentinelContext is Java's Context: a named entrance into the call tree and
// the caller's origin. It is itself the context.Context that EnterContext
// returns (the caller's, plus itself under ctxKey), which saves the
// allocation of a separate value context.
type sentinelContext struct {
	context.Context
	name     string
	origin   string
	entrance *EntranceNode // nil: past MaxContexts, calls pass unchecked
}

func (c *sentinelContext) Value(key any) any {
	if key == (ctxKey{}) {
		return c
	}
	if c.Context == nil {
		return nil
	}
	return c.Context.Value(key)
}

// ctxKey is the context.Context key of both a *sentinelContext (set by
// EnterContext) and a *SentinelEntry (set by SentinelEntry.Context), so that
// Entry finds either with one lookup.
type ctxKey struct{}

var (
	entranceMu        sync.Mutex
	entranceMap       atomic.Pointer[map[string]*EntranceNode]
	contextsCapWarned atomic.Bool

	defaultContext = &sentinelContext{name: DefaultContextName, entrance: entrance(DefaultContextName)}
)

// EnterContext returns ctx carrying a Sentinel context named name whose
// calls come from origin (Java's ContextUtil.enter). Entries opened with the
// result are counted under that context's entrance node; origin feeds
// authority rules, flow rules' limitApp and per-origin statistics.
//
// As in Java, a context that already carries a Sentinel context or an entry
// is returned unchanged: the outermost entrance names the call tree. Past
// MaxContexts distinct names, calls in a new context pass unchecked, and a
// warning is logged once.
func EnterContext(ctx context.Context, name, origin string) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Value(ctxKey{}) != nil {
		return ctx
	}
	if name == "" {
		name = DefaultContextName
	}
	return &sentinelContext{Context: ctx, name: name, origin: origin, entrance: entrance(name)}
}

// ContextName returns the name of the Sentinel context ctx carries, and its
// origin; the default context when it carries none.
func ContextName(ctx context.Context) (name, origin string) {
	sc, _ := contextOf(ctx)
	return sc.name, sc.origin
}

// contextOf returns the Sentinel context and the innermost open entry ctx
// carries.
func contextOf(ctx context.Context) (*sentinelContext, *SentinelEntry) {
	if ctx == nil {
		return defaultContext, nil
	}
	switch v := ctx.Value(ctxKey{}).(type) {
	case *SentinelEntry:
		return v.call.sc, v
	case *sentinelContext:
		return v, nil
	}
	return defaultContext, nil
}

// entrance returns the entrance node of a context name, creating it, or nil
// past MaxContexts.
func entrance(name string) *EntranceNode {
	if m := entranceMap.Load(); m != nil {
		if n := (*m)[name]; n != nil {
			return n
		}
	}
	entranceMu.Lock()
	defer entranceMu.Unlock()
	old := entranceMap.Load()
	if old != nil {
		if n := (*old)[name]; n != nil {
			return n
		}
		if len(*old) >= MaxContexts {
			warnOnce(&contextsCapWarned, "sentinel: context name limit reached; calls in new contexts pass unchecked",
				"limit", MaxContexts, "context", name)
			return nil
		}
	}
	next := make(map[string]*EntranceNode, 1+lenOf(old))
	if old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	n := &EntranceNode{name: name}
	next[name] = n
	entranceMap.Store(&next)
	return n
}

// entrances returns every entrance node, sorted by name.
func entrances() []*EntranceNode {
	m := entranceMap.Load()
	if m == nil {
		return nil
	}
	out := make([]*EntranceNode, 0, len(*m))
	for _, n := range *m {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
