package sentinelfiber

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
)

// Finding the route of a request from app.Use, where fiber has not matched
// it yet: an index of the app's routes per method, in stack order, each
// with a matcher compiled once, rebuilt when the app's handler count says
// routes were added.

// routeIndex is one middleware's index of the app it serves.
type routeIndex struct {
	mu  sync.Mutex
	cur atomic.Pointer[index]
}

type index struct {
	app      *fiber.App
	handlers uint32
	methods  map[string]*methodRoutes
}

// methodRoutes are one method's routes in stack order.
type methodRoutes struct {
	routes   []compiledRoute
	position map[*fiber.Route]int
}

type compiledRoute struct {
	route *fiber.Route
	match func(path string) bool
}

// pattern is the path of the route that serves c's request, "" when none
// does.
func (x *routeIndex) pattern(c *fiber.Ctx) string {
	cur := c.Route()
	idx := x.get(c.App())
	mr := idx.methods[c.Method()]
	if mr == nil || cur == nil {
		return ""
	}
	path := c.Path()
	at, known := mr.position[cur]
	if !known {
		return "" // a route the index has not seen (a mounted app's own stack)
	}
	if mr.routes[at].match(path) {
		return cur.Path // registered on the route itself
	}
	// Registered with Use: the first later route that matches serves it.
	for _, r := range mr.routes[at+1:] {
		if r.match(path) {
			return r.route.Path
		}
	}
	return ""
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
	idx := &index{app: app, handlers: handlers, methods: map[string]*methodRoutes{}}
	for _, stack := range app.Stack() {
		for _, r := range stack {
			mr := idx.methods[r.Method]
			if mr == nil {
				mr = &methodRoutes{position: map[*fiber.Route]int{}}
				idx.methods[r.Method] = mr
			}
			mr.position[r] = len(mr.routes)
			mr.routes = append(mr.routes, compiledRoute{route: r, match: compile(r.Path, cfg)})
		}
	}
	return idx
}

// segment kinds of a compiled pattern.
const (
	literal  = iota
	param    // ":name": one non-empty segment
	optional // ":name?" as the last segment: one segment or none
	rest     // "*" (anything, also nothing) or "+" (something) as the last segment
)

type segment struct {
	kind     int
	text     string // literal's
	nonEmpty bool   // rest's "+"
}

// compile returns a matcher of request paths for a fiber route pattern,
// by fiber's rules as cfg sets them (case sensitivity, strict routing).
// Patterns made of literal segments, ":param" segments, a last ":param?"
// and a last "*" or "+" get a matcher of their own; any other (parameter
// constraints, several parameters in a segment, inner wildcards) is
// matched by fiber.RoutePatternMatch, slower but fiber's own.
func compile(pattern string, cfg fiber.Config) func(string) bool {
	if !cfg.StrictRouting && len(pattern) > 1 {
		pattern = strings.TrimRight(pattern, "/") // as fiber registers it
		if pattern == "" {
			pattern = "/"
		}
	}
	segs, ok := parse(pattern)
	if !ok {
		return func(path string) bool { return fiber.RoutePatternMatch(routedPath(path, cfg), pattern, cfg) }
	}
	return func(path string) bool { return matchSegments(segs, routedPath(path, cfg), cfg) }
}

// routedPath is path as fiber's router matches it: "/" when empty, and
// without trailing slashes unless routing is strict.
func routedPath(path string, cfg fiber.Config) string {
	if path == "" {
		return "/"
	}
	if !cfg.StrictRouting && len(path) > 1 {
		if path = strings.TrimRight(path, "/"); path == "" {
			path = "/"
		}
	}
	return path
}

func parse(pattern string) ([]segment, bool) {
	if pattern == "" || pattern[0] != '/' {
		return nil, false
	}
	parts := strings.Split(pattern[1:], "/")
	segs := make([]segment, 0, len(parts))
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case p == "*" || p == "+":
			if !last {
				return nil, false
			}
			segs = append(segs, segment{kind: rest, nonEmpty: p == "+"})
		case strings.HasPrefix(p, ":"):
			name := p[1:]
			kind := param
			if strings.HasSuffix(name, "?") {
				if !last {
					return nil, false
				}
				kind, name = optional, name[:len(name)-1]
			}
			if name == "" || strings.ContainsAny(name, ":?*+<>-.~\\") {
				return nil, false
			}
			segs = append(segs, segment{kind: kind})
		default:
			if strings.ContainsAny(p, ":*+?<>\\") {
				return nil, false
			}
			segs = append(segs, segment{kind: literal, text: p})
		}
	}
	return segs, true
}

func matchSegments(segs []segment, path string, cfg fiber.Config) bool {
	if path[0] != '/' {
		return false
	}
	if len(segs) == 1 && segs[0].kind == literal && segs[0].text == "" {
		return path == "/" // the root pattern
	}
	rem := path[1:]
	for i, s := range segs {
		switch s.kind {
		case rest:
			return !s.nonEmpty || rem != ""
		case optional:
			return !strings.Contains(rem, "/")
		}
		seg, after, more := strings.Cut(rem, "/")
		switch s.kind {
		case literal:
			if seg != s.text && (cfg.CaseSensitive || !strings.EqualFold(seg, s.text)) {
				return false
			}
		case param:
			if seg == "" {
				return false
			}
		}
		if i == len(segs)-1 {
			return !more
		}
		if !more {
			// The pattern goes on: only an optional or "*" rest may match nothing.
			next := segs[i+1]
			return i+2 == len(segs) && (next.kind == optional || next.kind == rest && !next.nonEmpty)
		}
		rem = after
	}
	return rem == ""
}
