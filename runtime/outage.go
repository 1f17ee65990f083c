package runtime

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Dependency is a server that protection relies on, outside the process:
// the cluster client's Redis, an etcd or Redis rule source. While it is
// down protection changes (cluster rules are checked locally, rule
// updates stop arriving), so each outage is told once: one warning when it
// starts, one info line when it ends (with how long it lasted and what
// was done meanwhile), and Dependencies, which package metrics exports
// (sentinel_dependency_up, sentinel_dependency_outages_total) and the
// dashboard shows, for as long as it lasts.
//
// It reads the wall clock: outages happen in real time, also under a
// test's stepped clock. Its methods are safe for concurrent use.
type Dependency struct {
	kind, name, impact string

	mu      sync.Mutex
	down    bool
	since   time.Time
	cause   string
	outages int64
	closed  bool
}

// DependencyStatus is one dependency's state, for metrics and dashboards.
type DependencyStatus struct {
	Kind string `json:"kind"` // "cluster redis", "etcd rule source", ...
	Name string `json:"name"` // its address, key or path
	Down bool   `json:"down"`
	// Since is when the outage in progress began (zero while up).
	Since time.Time `json:"since,omitzero"`
	// Cause is the error that began it.
	Cause string `json:"cause,omitempty"`
	// Impact says what protection does meanwhile.
	Impact  string `json:"impact"`
	Outages int64  `json:"outages"`
}

var (
	depsMu sync.Mutex
	deps   []*Dependency
)

// NewDependency registers a dependency, up, until Close. kind names what
// it is ("cluster redis"), name which one (an address, a key), and impact
// what protection does while it is down ("cluster rules are checked
// locally"); the three appear in its log lines, metrics and the page.
func NewDependency(kind, name, impact string) *Dependency {
	d := &Dependency{kind: kind, name: name, impact: impact}
	depsMu.Lock()
	deps = append(deps, d)
	depsMu.Unlock()
	return d
}

// Down records that the dependency does not answer. The first call of an
// outage logs one warning with cause; later ones until Up do nothing.
// It reports whether this call began the outage.
func (d *Dependency) Down(cause error) bool {
	d.mu.Lock()
	if d.down || d.closed {
		d.mu.Unlock()
		return false
	}
	why := ""
	if cause != nil {
		why = cause.Error()
	}
	d.down, d.since, d.outages, d.cause = true, time.Now(), d.outages+1, why
	d.mu.Unlock()
	// why, not d.cause: an Up at once may clear d.cause as this logs.
	Logger().Warn("sentinel: "+d.kind+" unreachable; "+d.impact+" until it answers",
		"name", d.name, "error", why)
	return true
}

// Up records that the dependency answers again. When an outage was in
// progress it logs one info line with the outage's length and meanwhile
// (slog key-value pairs: what was done in its stead), and reports true.
func (d *Dependency) Up(meanwhile ...any) bool {
	d.mu.Lock()
	if !d.down {
		d.mu.Unlock()
		return false
	}
	took := time.Since(d.since)
	d.down, d.since, d.cause = false, time.Time{}, ""
	d.mu.Unlock()
	args := append([]any{"name", d.name, "outage", took.Round(time.Millisecond).String()}, meanwhile...)
	Logger().Info("sentinel: "+d.kind+" answers again; back to normal", args...)
	return true
}

// IsDown reports whether an outage is in progress.
func (d *Dependency) IsDown() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.down
}

// Close unregisters the dependency (its client or source was closed); an
// outage in progress ends without a line.
func (d *Dependency) Close() {
	d.mu.Lock()
	d.closed, d.down = true, false
	d.mu.Unlock()
	depsMu.Lock()
	deps = slices.DeleteFunc(deps, func(x *Dependency) bool { return x == d })
	depsMu.Unlock()
}

func (d *Dependency) status() DependencyStatus {
	d.mu.Lock()
	defer d.mu.Unlock()
	return DependencyStatus{Kind: d.kind, Name: d.name, Down: d.down, Since: d.since, Cause: d.cause, Impact: d.impact, Outages: d.outages}
}

// Dependencies reports every registered dependency, by kind and name.
func Dependencies() []DependencyStatus {
	depsMu.Lock()
	list := slices.Clone(deps)
	depsMu.Unlock()
	out := make([]DependencyStatus, len(list))
	for i, d := range list {
		out[i] = d.status()
	}
	slices.SortStableFunc(out, func(a, b DependencyStatus) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
