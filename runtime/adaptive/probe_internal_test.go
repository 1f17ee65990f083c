package adaptive

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call started before a probe began but checked within it (paced by a
// flow rule, or queued for a slot) is admitted under the limit alone: it
// takes no probe slot, and its exit gives back exactly what it took.
func TestACallStartedBeforeTheProbeIsAdmittedUnderTheLimit(t *testing.T) {
	l := newLimiter(&Rule{Resource: "early", InitialLimit: 3, MinLimit: 1, MaxLimit: 10})
	l.beginProbe(1000)

	require.True(t, l.acquire(999), "nothing in flight: the call started before the probe gets in")
	assert.Equal(t, int64(1), l.inFlight.Load())
	assert.Equal(t, int64(0), l.probeInFlight.Load(), "it took no probe slot")

	require.True(t, l.acquire(1001), "the probe's own call takes its one slot")
	assert.Equal(t, int64(1), l.probeInFlight.Load())
	assert.False(t, l.acquire(1002), "the probe's slot is taken")
	require.True(t, l.acquire(1000), "a call started in the probe's first millisecond is held to the limit alone")
	assert.False(t, l.acquire(998), "the limit of 3 is full: calls from before the probe too are held to it")
	assert.Equal(t, int64(3), l.inFlight.Load())

	l.release(999, -1, 1003, 0)
	l.release(1000, -1, 1003, 0)
	assert.Equal(t, int64(1), l.probeInFlight.Load(), "exits of calls from before the probe leave its slot taken")
	l.release(1001, -1, 1003, 0)
	assert.Equal(t, int64(0), l.inFlight.Load())
	assert.Equal(t, int64(0), l.probeInFlight.Load())
}

// A call started within a probe but admitted after it ended (it waited)
// is counted in as its exit counts it out: the probe's count never goes
// below what is in flight.
func TestACallStartedInAProbeAndAdmittedAfterItIsCountedOnce(t *testing.T) {
	l := newLimiter(&Rule{Resource: "late", InitialLimit: 3, MinLimit: 1, MaxLimit: 10})
	l.beginProbe(1000)
	require.True(t, l.acquire(1001))
	l.probeTo.Store(1005) // the probe ends, as probe does
	l.probing.Store(false)

	require.True(t, l.acquire(1003), "admitted under the limit")
	assert.Equal(t, int64(2), l.probeInFlight.Load())
	l.release(1003, -1, 1006, 0)
	l.release(1001, -1, 1006, 0)
	assert.Equal(t, int64(0), l.probeInFlight.Load())
	assert.Equal(t, int64(0), l.inFlight.Load())
}
