package cluster

import (
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/stretchr/testify/require"
)

// A check that fails as another one succeeds may open and close the
// breaker in either order; whatever order they end in, the dependency
// shows what the breaker is: down while it is open, up once it closed. A
// dependency left down while Redis answers would say so on every
// dashboard and metric until the next outage.
func TestTheOutageFollowsTheBreakerWhenChecksRace(t *testing.T) {
	runtime.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { runtime.SetLogger(nil) })
	boom := errors.New("boom")
	for round := range 10000 {
		c := &Client{br: breaker{failures: 1, cooldown: time.Hour}, dep: runtime.NewDependency("cluster redis", "race", outageImpact)}
		if round%2 == 1 {
			c.failure(false, boom) // begin open: the success closes it as the failure reopens it
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-start; c.failure(false, boom) }()
		go func() { defer wg.Done(); <-start; c.success(false) }()
		close(start)
		wg.Wait()
		require.Equal(t, c.br.open(), c.dep.IsDown(), "round %d: breaker open %v", round, c.br.open())
		c.dep.Close()
	}
}
