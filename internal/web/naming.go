package web

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Resource naming: a router's pattern becomes a resource name, and each
// (pattern, method) pair is resolved to its *runtime.Resource once, so an
// admitted request looks nothing up by name and allocates no name.

// splitPattern splits a ServeMux pattern "[METHOD ][HOST]/[PATH]" into its
// method and its path: "GET example.com/api/{id}" gives "GET" and
// "/api/{id}". Other routers' patterns ("/api/order/:id") are paths
// already and come back as they are. Patterns in the Go 1.21 syntax (GODEBUG httpmuxgo121=1)
// have no method and may contain spaces in the path; a prefix that
// contains a "/" is never taken for a method.
func splitPattern(p string) (method, path string) {
	rest := p
	if i := strings.IndexAny(p, " \t"); i > 0 && !strings.Contains(p[:i], "/") {
		method, rest = p[:i], strings.TrimLeft(p[i+1:], " \t")
	}
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		return method, rest[j:]
	}
	return method, rest
}

// The methods that get their own "METHOD:" resource name with
// WithMethodPrefix. A request's method is whatever the client sent; naming
// resources after arbitrary methods would let clients create resources
// without bound (see the package documentation), so any other method is
// named otherMethod, unless the pattern itself names it.
var standardMethods = [...]string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace,
}

const (
	otherMethod  = "OTHER"
	otherSlot    = len(standardMethods)
	methodSlots  = otherSlot + 1
	maxRoutes    = 4096 // a guard: patterns are registered routes, far fewer
	resourceType = runtime.Web
)

func methodSlot(m string) int {
	switch m {
	case http.MethodGet:
		return 0
	case http.MethodHead:
		return 1
	case http.MethodPost:
		return 2
	case http.MethodPut:
		return 3
	case http.MethodPatch:
		return 4
	case http.MethodDelete:
		return 5
	case http.MethodConnect:
		return 6
	case http.MethodOptions:
		return 7
	case http.MethodTrace:
		return 8
	}
	return otherSlot
}

// methodLabel is the method prefix for a request with method m on a route
// whose pattern names patternMethod ("" when none).
func methodLabel(m, patternMethod string) string {
	if s := methodSlot(m); s != otherSlot {
		return standardMethods[s]
	}
	if m == patternMethod {
		return m // a custom method the route itself declares: bounded
	}
	return otherMethod
}

// route is one ServeMux pattern and the resources it is protected as.
type route struct {
	pattern       string // as the router wrote it
	name          string // resource name without method prefix
	patternMethod string
	plain         atomic.Pointer[runtime.Resource]
	byMethod      [methodSlots]atomic.Pointer[runtime.Resource]
}

// resource returns the route's resource for a request with method m,
// declaring it on first use.
func (rt *route) resource(m string, methodPrefix bool) *runtime.Resource {
	p := &rt.plain
	if methodPrefix {
		p = &rt.byMethod[methodSlot(m)]
	}
	if res := p.Load(); res != nil {
		return res
	}
	name := rt.name
	if methodPrefix {
		name = methodLabel(m, rt.patternMethod) + ":" + name
	}
	res := declare(name)
	p.Store(res)
	return res
}

func declare(name string) *runtime.Resource {
	return runtime.Declare(runtime.ResourceSpec{Name: name, Traffic: runtime.Inbound, Type: resourceType})
}

// routeCache maps patterns to routes: a copy-on-write map, read on every
// request without a lock, written once per pattern.
//
// In front of the map, recent holds routes in slots picked by the address
// of their pattern's bytes, each slot taken by the first route that lands
// in it and never replaced. A router hands out its own pattern string for
// every request of a route, so a request finds its route there with one
// pointer comparison instead of hashing the whole pattern; a pattern built
// per request, or a route whose slot is another's, is found in the map.
type routeCache struct {
	mu     sync.Mutex
	m      atomic.Pointer[map[string]*route]
	recent [recentSlots]atomic.Pointer[route]
}

const recentSlots = 64 // a power of two

// recentSlot picks pattern's slot in routeCache.recent from the address
// of its bytes: the strings of one router's patterns lie apart.
func recentSlot(pattern string) int {
	p := uintptr(unsafe.Pointer(unsafe.StringData(pattern)))
	return int((p>>3 ^ p>>9) & (recentSlots - 1))
}

// keeps reports whether pattern is the route's own pattern string, its
// bytes and not only its text: what a router hands out for each request
// of a route, so that the route in the pattern's recent slot is found
// with no call (Engine.Target).
func (rt *route) keeps(pattern string) bool {
	return unsafe.StringData(rt.pattern) == unsafe.StringData(pattern) && len(rt.pattern) == len(pattern)
}

func (c *routeCache) get(pattern string) *route {
	slot := &c.recent[recentSlot(pattern)]
	cached := slot.Load()
	if cached != nil && cached.pattern == pattern {
		return cached
	}
	if m := c.m.Load(); m != nil {
		if rt := (*m)[pattern]; rt != nil {
			if cached == nil {
				slot.CompareAndSwap(nil, rt)
			}
			return rt
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	n := 0
	if old != nil {
		if rt := (*old)[pattern]; rt != nil {
			return rt
		}
		n = len(*old)
	}
	method, path := splitPattern(pattern)
	rt := &route{pattern: pattern, name: path, patternMethod: method}
	if n >= maxRoutes {
		return rt // not kept; the runtime still finds its resource by name
	}
	next := make(map[string]*route, n+1)
	if old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	next[pattern] = rt
	c.m.Store(&next)
	return rt
}
