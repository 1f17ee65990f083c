package sentinelfiber

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Finding the route of a request from app.Use, where fiber has not matched
// it yet. The index holds a router of its own: a fiber app with the app's
// routes, in stack order, under the same routing configuration, each
// handled by a probe that notes its route. A lookup runs the request's
// method and path through it, so it is fiber's own routing, parsed once
// (parameter constraints, `:id<regex(...)>` and `:id<int>`, compiled when
// the index is built, never per request), at about the cost of fiber's
// routing. Routes registered with Use are left out: they never serve a
// request. The index is rebuilt when the app's handler count says routes
// were added.

// routeIndex is one middleware's index of the app it serves.
type routeIndex struct {
	mu  sync.Mutex
	cur atomic.Pointer[index]
}

type index struct {
	app      *fiber.App
	handlers uint32
	places   map[*fiber.Route]*place // every route of the app's stacks
	// hints hold the places of the routes the middleware ran at lately,
	// in slots picked by the route's address: a middleware runs at one
	// route per method it is registered for (fiber copies a Use route
	// into each method's stack), which a pointer comparison finds there
	// instead of a map lookup.
	hints [hintSlots]atomic.Pointer[place]
	route fasthttp.RequestHandler
	found routeMemo
}

const hintSlots = 16 // a power of two

// place is a route of the app's stacks: where it is in its method's
// stack, its method's part of a memo key, and, for a route that serves
// requests (one not registered with Use), its target.
type place struct {
	route     *fiber.Route
	at        int
	method    string
	methodKey uint64
	serves    *target
}

// target is a route that serves requests, as the middleware names it: its
// path, and the resource the middleware's engine resolved it to (set on
// the first request, when the resource depends on the route alone).
type target struct {
	path string
	res  atomic.Pointer[runtime.Resource]
}

// probe is one lookup: the request's method and path as fiber routes them
// (a middleware before may have changed either), and what the router
// found.
type probe struct {
	ctx    fasthttp.RequestCtx
	after  int     // the middleware's place: only a route from there on serves
	served *target // the route that serves; noRoute when none does
}

// noRoute is the target of requests no route serves; its resource is
// never set.
var noRoute = &target{}

// probeKey is the user value of a probe's request context that holds the
// probe.
const probeKey = "sentinelfiber.probe"

var probes = sync.Pool{New: func() any {
	p := &probe{}
	p.ctx.SetUserValue(probeKey, p)
	return p
}}

// pattern is the path of the route that serves c's request, "" when none
// does (see target).
func (x *routeIndex) pattern(c *fiber.Ctx) string { return x.target(c).path }

// target is the route that serves c's request, noRoute when none does:
// the route c is at, when the middleware was registered on it, else (from
// Use) the first later route that matches.
func (x *routeIndex) target(c *fiber.Ctx) *target {
	cur := c.Route()
	if cur == nil {
		return noRoute
	}
	idx := x.get(c.App())
	hint := &idx.hints[uint64(uintptr(unsafe.Pointer(cur)))*0x9e3779b97f4a7c15>>(64-4)]
	pl := hint.Load()
	if pl == nil || pl.route != cur {
		if pl = idx.places[cur]; pl == nil {
			return noRoute // a route the index has not seen (a mounted app's own stack)
		}
		hint.Store(pl)
	}
	if pl.serves != nil {
		return pl.serves // registered on the route itself, which fiber matched
	}
	method, path := c.Method(), c.Path()
	mk := pl.methodKey
	if method != pl.method { // changed by a middleware before
		mk = methodKey(method)
	}
	key := memoKey(pl.at, mk, path)
	if served := idx.found.get(key); served != nil {
		return served
	}
	p := probes.Get().(*probe)
	defer probes.Put(p)
	p.after, p.served = pl.at, noRoute
	p.ctx.Request.Header.SetMethod(method)
	// c.Path is the path fiber routes on, unescaped if the app says so:
	// the router takes it as it is (SetPath, UnescapePath off), so that a
	// "%3F" unescaped to "?" stays in the path.
	p.ctx.URI().SetPath(path)
	idx.route(&p.ctx)
	idx.found.put(key, p.served)
	return p.served
}

// routeMemo remembers which route the probe found for a request, so that
// a request like it (the same method and path, from the same place) is
// named without routing it again: most traffic repeats its paths. It has
// a fixed number of slots, picked by a seeded 64-bit hash of the request,
// each holding the hash and the route (its target); a new request takes its
// slot over. Remembering allocates nothing and keeps no path of the
// client's, so paths the clients choose cost no memory; two requests
// with one hash would share an answer, which, the seed being random, no
// client can arrange.
type routeMemo struct {
	mu    sync.Mutex // serialises writers
	slots [memoSlots]struct {
		key    atomic.Uint64 // 0 while empty or being written
		served atomic.Pointer[target]
	}
}

const memoSlots = 1024 // a power of two

var memoSeed = maphash.MakeSeed()

// memoKey is the hash of a request with path and the method whose
// methodKey is method, for the middleware at place at of its method's
// stack, never 0.
func memoKey(at int, method uint64, path string) uint64 {
	k := maphash.String(memoSeed, path) ^ method ^ uint64(at)*0x9e3779b97f4a7c15
	if k == 0 {
		k = 1
	}
	return k
}

// methodKey is method's part of a memo key.
func methodKey(method string) uint64 {
	return bits.RotateLeft64(maphash.String(memoSeed, method), 17)
}

// get returns the target remembered for key, nil when none is.
func (m *routeMemo) get(key uint64) *target {
	s := &m.slots[key&(memoSlots-1)]
	if s.key.Load() != key {
		return nil
	}
	served := s.served.Load()
	if s.key.Load() != key { // rewritten meanwhile
		return nil
	}
	return served
}

// put remembers served for key. A writer that finds another writing
// leaves it be: remembering is only a shortcut.
func (m *routeMemo) put(key uint64, served *target) {
	if !m.mu.TryLock() {
		return
	}
	s := &m.slots[key&(memoSlots-1)]
	s.key.Store(0)
	s.served.Store(served)
	s.key.Store(key)
	m.mu.Unlock()
}

func (x *routeIndex) get(app *fiber.App) *index {
	n := app.HandlersCount()
	if idx := x.cur.Load(); idx != nil && idx.app == app && idx.handlers == n {
		return idx
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if idx := x.cur.Load(); idx != nil && idx.app == app && idx.handlers == n {
		return idx
	}
	idx := build(app, n)
	x.cur.Store(idx)
	return idx
}

func build(app *fiber.App, handlers uint32) *index {
	cfg := app.Config()
	router := fiber.New(fiber.Config{
		CaseSensitive:  cfg.CaseSensitive,
		StrictRouting:  cfg.StrictRouting,
		RequestMethods: cfg.RequestMethods,
		// A request no route serves is answered into the probe's
		// context, which nobody reads.
		ErrorHandler: func(*fiber.Ctx, error) error { return nil },
	})
	idx := &index{app: app, handlers: handlers, places: map[*fiber.Route]*place{}}
	methods := cfg.RequestMethods
	if len(methods) == 0 {
		methods = fiber.DefaultMethods
	}
	// Routes registered with Use run for the requests under their
	// prefix and never serve one: only the others go in the router.
	// fiber tells them apart only through GetRoutes, whose copies come
	// in stack order.
	serving := app.GetRoutes(true)
	for m, stack := range app.Stack() {
		mk := methodKey(methods[m])
		for at, r := range stack {
			pl := &place{route: r, at: at, method: methods[m], methodKey: mk}
			idx.places[r] = pl
			if len(serving) > 0 && sameRoute(&serving[0], r) {
				serving = serving[1:]
				pl.serves = &target{path: r.Path}
				router.Add(methods[m], r.Path, serves(at, pl.serves))
			}
		}
	}
	idx.route = router.Handler()
	return idx
}

// sameRoute reports whether dup is a copy of route: the same method and
// path, and the same handlers (a copy shares their array).
func sameRoute(dup, route *fiber.Route) bool {
	return dup.Method == route.Method && dup.Path == route.Path && len(dup.Handlers) == len(route.Handlers) &&
		(len(dup.Handlers) == 0 || &dup.Handlers[0] == &route.Handlers[0])
}

// serves is the router's handler for the route at place at of its
// method's stack, t: it serves the probe's request unless it comes
// before the middleware, when the router goes on to the next route that
// matches.
func serves(at int, t *target) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p := c.Context().UserValue(probeKey).(*probe)
		if at < p.after {
			return c.Next()
		}
		p.served = t
		return nil
	}
}
