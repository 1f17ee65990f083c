package runtime

import (
	"context"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/capmap"
)

// DefaultContextName is the context of calls made outside any EnterContext
// (Java's Constants.CONTEXT_DEFAULT_NAME).
const DefaultContextName = "sentinel_default_context"

// MaxContexts bounds the context names besides the default
// (Java's MAX_CONTEXT_NAME_SIZE). Calls in contexts past it are counted
// together under one entrance, OverflowContextName, and checked as usual
// (Java passes them unchecked); a warning is logged once.
const MaxContexts = 2000

// OverflowContextName names the entrance that counts the calls in contexts
// past MaxContexts.
const OverflowContextName = "sentinel_overflow_context"

// MaxOriginBytes is the longest origin kept: EnterContext cuts a longer one
// to its first MaxOriginBytes bytes. Origins often come from request
// headers, which callers choose.
const MaxOriginBytes = 256

// sentinelContext is Java's Context: a named entrance into the call tree and
// the caller's origin. It is itself the context.Context that EnterContext
// returns (the caller's, plus itself under ctxKey), which saves the
// allocation of a separate value context.
type sentinelContext struct {
	context.Context
	name     string
	origin   string
	entrance *EntranceNode
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
	defaultEntrance  = &EntranceNode{name: DefaultContextName}
	overflowEntrance = &EntranceNode{name: OverflowContextName}
	entranceTable    = capmap.New[string, *EntranceNode](capmap.Limits{
		Entries:  MaxContexts,
		Bytes:    MaxContexts * (capmap.EntryOverhead + 256),
		KeyBytes: 1 << 10,
	}, func(name string) int { return len(name) })
	// recentEntrance is the named entrance entrance last found: an inbound
	// adapter enters one context name on every request, which this finds
	// with a comparison instead of a table lookup.
	recentEntrance       atomic.Pointer[EntranceNode]
	overflowEntranceUsed atomic.Bool
	contextsCapWarned    atomic.Bool

	defaultContext = &sentinelContext{name: DefaultContextName, entrance: defaultEntrance}
)

// EnterContext returns ctx carrying a Sentinel context named name whose
// calls come from origin (Java's ContextUtil.enter). Entries opened with the
// result are counted under that context's entrance node; origin feeds
// authority rules, flow rules' limitApp and per-origin statistics.
//
// As in Java, a context that already carries a Sentinel context or an entry
// is returned unchanged: the outermost entrance names the call tree. An
// empty name, or the default context's own name (which Java refuses with
// ContextNameDefineException), enters the default context with origin.
// Past MaxContexts distinct names, calls in a new context are counted
// under the entrance OverflowContextName, and a warning is logged once.
// An origin longer than MaxOriginBytes is cut to that length.
func EnterContext(ctx context.Context, name, origin string) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Value(ctxKey{}) != nil {
		return ctx
	}
	return newContext(&sentinelContext{}, ctx, name, origin)
}

// newContext fills sc as the Sentinel context name, origin on top of ctx,
// and returns it.
func newContext(sc *sentinelContext, ctx context.Context, name, origin string) *sentinelContext {
	if name == "" {
		name = DefaultContextName
	}
	if len(origin) > MaxOriginBytes {
		// A copy: a slice of a long header would keep all of it alive in
		// the origin tables.
		origin = strings.Clone(origin[:MaxOriginBytes])
	}
	*sc = sentinelContext{Context: ctx, name: name, origin: origin, entrance: entrance(name)}
	return sc
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
		return v.call.context(), v
	case *sentinelContext:
		return v, nil
	}
	return defaultContext, nil
}

// entrance returns the entrance node of a context name, creating it, or the
// overflow entrance past MaxContexts.
func entrance(name string) *EntranceNode {
	switch name {
	case DefaultContextName:
		return defaultEntrance
	case OverflowContextName:
		overflowEntranceUsed.Store(true)
		return overflowEntrance
	}
	if n := recentEntrance.Load(); n != nil && n.name == name {
		return n
	}
	n, ok := entranceTable.LoadOrCreate(name, false, func() *EntranceNode { return &EntranceNode{name: name} })
	if ok {
		recentEntrance.Store(n)
		return n
	}
	overflowEntranceUsed.Store(true)
	if !contextsCapWarned.Load() { // the arguments allocate: only build them once
		warnOnce(&contextsCapWarned, "sentinel: context name limit reached; calls in further contexts are counted together",
			"limit", MaxContexts, "context", safeAttr(name), "counted as", OverflowContextName)
	}
	return overflowEntrance
}

// entrances returns every entrance node, sorted by name: the default, the
// named ones, and the overflow once used.
func entrances() []*EntranceNode {
	out := make([]*EntranceNode, 0, entranceTable.Len()+2)
	out = append(out, defaultEntrance)
	entranceTable.Range(func(_ string, n *EntranceNode) bool {
		out = append(out, n)
		return true
	})
	if overflowEntranceUsed.Load() {
		out = append(out, overflowEntrance)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
