package runtime_test

import (
	"log/slog"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// testSlot is a slot that applies to the resources it names and records
// what the chain asks of it.
type testSlot struct {
	resources map[string]bool
	block     func(c *runtime.Call) bool
	readsArgs bool
	rule      runtime.Rule // the rule its blocks name; nil names none

	mu     sync.Mutex
	events []string
}

func newTestSlot(resources ...string) *testSlot {
	s := &testSlot{resources: map[string]bool{}}
	for _, r := range resources {
		s.resources[r] = true
	}
	return s
}

func (s *testSlot) Bind(r *runtime.Resource) runtime.Checker {
	if !s.resources[r.Name()] {
		return nil
	}
	return s
}

func (s *testSlot) Check(c *runtime.Call) *runtime.BlockError {
	if s.block != nil && s.block(c) {
		s.record("block " + c.Name())
		return c.Block(runtime.BlockCustom, s.rule, "test")
	}
	s.record("check " + c.Name())
	return nil
}

func (s *testSlot) Exit(c *runtime.Call) {
	if c.BlockError() != nil {
		s.record("exit-blocked " + c.Name())
		return
	}
	s.record("exit " + c.Name())
}

func (s *testSlot) NeedsArgs() bool { return s.readsArgs }

func (s *testSlot) record(ev string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ev)
}

func (s *testSlot) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

// register adds the slot for the duration of the test.
func register(t *testing.T, name string, order int, s runtime.Slot) {
	t.Helper()
	runtime.RegisterSlot(name, order, s)
	t.Cleanup(func() { runtime.UnregisterSlot(name) })
}

func TestMain(m *testing.M) {
	// Tests that read the log capture it; the rest stay quiet.
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}
