package runtime_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime"
)

func dependency(kind, name string) (runtime.DependencyStatus, bool) {
	for _, d := range runtime.Dependencies() {
		if d.Kind == kind && d.Name == name {
			return d, true
		}
	}
	return runtime.DependencyStatus{}, false
}

// An outage is told once when it starts and once when it ends, however
// many failures it is made of, and Dependencies shows it meanwhile.
func TestOutageIsLoggedOnceWhenItStartsAndOnceWhenItEnds(t *testing.T) {
	log := logtest.Capture(t)
	d := runtime.NewDependency("test server", "127.0.0.1:1", "test rules are checked locally")
	t.Cleanup(d.Close)

	st, ok := dependency("test server", "127.0.0.1:1")
	require.True(t, ok)
	assert.False(t, st.Down)
	assert.False(t, d.Up(), "no outage to end")

	assert.True(t, d.Down(errors.New("connection refused")))
	for range 100 {
		assert.False(t, d.Down(errors.New("connection refused")))
	}
	st, _ = dependency("test server", "127.0.0.1:1")
	assert.True(t, st.Down)
	assert.Equal(t, "connection refused", st.Cause)
	assert.False(t, st.Since.IsZero())
	assert.EqualValues(t, 1, st.Outages)
	require.Equal(t, 1, log.Count("test server unreachable"))
	assert.Contains(t, log.Lines("test server unreachable")[0], "test rules are checked locally until it answers")
	assert.Contains(t, log.Lines("test server unreachable")[0], "level=WARN")

	assert.True(t, d.Up("checkedLocally", 7))
	assert.False(t, d.Up())
	require.Equal(t, 1, log.Count("test server answers again"))
	line := log.Lines("test server answers again")[0]
	assert.Contains(t, line, "level=INFO")
	assert.Contains(t, line, "checkedLocally=7")
	assert.Contains(t, line, "outage=")
	st, _ = dependency("test server", "127.0.0.1:1")
	assert.False(t, st.Down)
	assert.True(t, st.Since.IsZero())

	d.Close()
	_, ok = dependency("test server", "127.0.0.1:1")
	assert.False(t, ok, "closed: no longer listed")
	assert.False(t, d.Down(errors.New("late")), "a closed dependency tells nothing")
}

// Down and Up may run at once (one check fails as another succeeds): the
// warning's cause is the one Down recorded, read under the lock (-race).
func TestDownAndUpAtOnceDoNotRace(t *testing.T) {
	logtest.Capture(t)
	d := runtime.NewDependency("test server", "127.0.0.1:3", "test rules are checked locally")
	t.Cleanup(d.Close)
	boom := errors.New("boom")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2000 {
			d.Down(boom)
			d.Up()
		}
	}()
	for range 2000 {
		d.Down(boom)
		d.Up()
	}
	<-done
}
