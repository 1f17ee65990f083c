package nethttp_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

// call is what a recorder slot saw of one call.
type call struct {
	Name, Context, Origin string
	Traffic               runtime.TrafficType
	Type                  runtime.ResourceType
	Args                  []any
	Err                   error // recorded at exit
}

// recorder is a slot that sees every call: it records them, blocks the
// resources named in block, and asks for arguments on those in args.
type recorder struct {
	mu    sync.Mutex
	calls []call
	exits []call
	block map[string]bool
	args  map[string]bool
}

// record registers a recorder for the duration of the test.
func record(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{block: map[string]bool{}, args: map[string]bool{}}
	runtime.RegisterSlot("nethttp-test-recorder", runtime.OrderFlow, r)
	t.Cleanup(func() { runtime.UnregisterSlot("nethttp-test-recorder") })
	return r
}

// blocking makes the recorder block calls to names.
func (r *recorder) blocking(names ...string) *recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		r.block[n] = true
	}
	runtime.RulesChanged()
	return r
}

// wantingArgs makes the recorder's checker read arguments of names.
func (r *recorder) wantingArgs(names ...string) *recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		r.args[n] = true
	}
	runtime.RulesChanged()
	return r
}

func (r *recorder) Bind(res *runtime.Resource) runtime.Checker {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &checker{r: r, block: r.block[res.Name()], args: r.args[res.Name()]}
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		out = append(out, c.Name)
	}
	return out
}

func (r *recorder) last() call {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		return call{}
	}
	return r.calls[len(r.calls)-1]
}

func (r *recorder) lastExit() call {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.exits) == 0 {
		return call{}
	}
	return r.exits[len(r.exits)-1]
}

type checker struct {
	r           *recorder
	block, args bool
}

func snapshot(c *runtime.Call) call {
	return call{Name: c.Name(), Context: c.ContextName(), Origin: c.Origin(), Traffic: c.Traffic(),
		Type: c.ResourceType(), Args: c.Args(), Err: c.Err()}
}

func (k *checker) Check(c *runtime.Call) *runtime.BlockError {
	k.r.mu.Lock()
	k.r.calls = append(k.r.calls, snapshot(c))
	k.r.mu.Unlock()
	if k.block {
		return c.Block(runtime.BlockCustom, nil, "test")
	}
	return nil
}

func (k *checker) Exit(c *runtime.Call) {
	k.r.mu.Lock()
	k.r.exits = append(k.r.exits, snapshot(c))
	k.r.mu.Unlock()
}

func (k *checker) NeedsArgs() bool { return k.args }

// cluster returns the named resource's cluster node; it fails the test when
// the resource does not exist.
func cluster(t *testing.T, name string) *runtime.ClusterNode {
	t.Helper()
	r := runtime.LookupResource(name)
	if r == nil {
		t.Fatalf("resource %q does not exist", name)
	}
	return r.ClusterNode()
}

// ok is a handler that answers 200 "ok".
var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })

func contextWithCancel(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithCancel(r.Context())
}

// noLeaks checks, after the test's other cleanups (servers closed), that no
// goroutine it started is left. Call it first.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		goleak.VerifyNone(t, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
	})
}
