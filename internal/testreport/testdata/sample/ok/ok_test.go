package ok

import "testing"

func TestPasses(t *testing.T) {}

func TestSkips(t *testing.T) { t.Skip("redis-server not found") }

func TestFailsInOneSubtest(t *testing.T) {
	t.Run("fine", func(t *testing.T) {})
	t.Run("wrong", func(t *testing.T) { t.Error("got 247, want >= 285") })
}

func TestSkipsOneSubtest(t *testing.T) {
	t.Run("sub", func(t *testing.T) { t.Skip("machine too slow") })
}
