package system

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Reader reads the machine's state for the load and CPU thresholds. The
// background sampler calls it about once a second, never on a call's path.
type Reader interface {
	// SystemLoad is the one-minute load average.
	SystemLoad() (float64, error)
	// CPUUsage is the recent CPU usage in 0..1; a negative value means
	// not known yet (a usage is a difference of two readings).
	CPUUsage() (float64, error)
}

// SampleInterval is how often the sampler reads the machine's state.
const SampleInterval = time.Second

var (
	readMu   sync.Mutex // serialises readings: a Reader keeps state between them
	reader   Reader     = defaultReader()
	readWarn atomic.Bool

	// The readings the checks use, as float64 bits; -1 is unknown, which
	// no threshold is exceeded by.
	curLoad = newReading()
	curCPU  = newReading()

	// The sampler goroutine, guarded by loadMu.
	samplerStop chan struct{}
	samplerDone chan struct{}
)

func newReading() *atomic.Uint64 {
	var a atomic.Uint64
	a.Store(math.Float64bits(-1))
	return &a
}

// CurrentLoad is the last load average read, -1 when unknown (no load or
// CPU rule is loaded, or the platform has no reading).
func CurrentLoad() float64 { return math.Float64frombits(curLoad.Load()) }

// CurrentCPUUsage is the last CPU usage read, in 0..1, -1 when unknown.
func CurrentCPUUsage() float64 { return math.Float64frombits(curCPU.Load()) }

// SetReader replaces the source of the load and CPU readings (nil restores
// the platform's) and takes a reading at once. Tests inject readings with
// it; restore puts the previous reader back.
func SetReader(r Reader) (restore func()) {
	if r == nil {
		r = defaultReader()
	}
	readMu.Lock()
	prev := reader
	reader = r
	readMu.Unlock()
	Sample()
	return func() {
		readMu.Lock()
		reader = prev
		readMu.Unlock()
	}
}

// Sample takes a reading now. The sampler does so about once a second
// while a load or CPU threshold is loaded; tests call it after changing an
// injected Reader's figures.
func Sample() {
	readMu.Lock()
	defer readMu.Unlock()
	load, err := reader.SystemLoad()
	if err != nil {
		load = -1
		warnRead(err)
	}
	cpu, err := reader.CPUUsage()
	if err != nil {
		cpu = -1
		warnRead(err)
	}
	curLoad.Store(math.Float64bits(load))
	curCPU.Store(math.Float64bits(min(cpu, 1)))
}

// warnRead logs the first reading that failed: the load and CPU thresholds
// are off while readings fail.
func warnRead(err error) {
	if !readWarn.CompareAndSwap(false, true) {
		return
	}
	if errors.Is(err, errors.ErrUnsupported) {
		runtime.Logger().Warn("sentinel: system load and CPU usage cannot be read on this platform; highestSystemLoad and highestCpuUsage thresholds are off", "error", err)
		return
	}
	runtime.Logger().Warn("sentinel: reading system load or CPU usage failed; the threshold is off while it fails", "error", err)
}

// startSampler starts the background sampler unless it runs, taking a
// first reading before it returns. Called with loadMu held.
func startSampler() {
	if samplerStop != nil {
		return
	}
	Sample()
	stop, done := make(chan struct{}), make(chan struct{})
	samplerStop, samplerDone = stop, done
	go func() {
		defer close(done)
		t := time.NewTicker(SampleInterval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				Sample()
			}
		}
	}()
}

// stopSampler stops the sampler and waits for it to end, and forgets the
// readings. Called with loadMu held.
func stopSampler() {
	if samplerStop == nil {
		return
	}
	close(samplerStop)
	<-samplerDone
	samplerStop, samplerDone = nil, nil
	curLoad.Store(math.Float64bits(-1))
	curCPU.Store(math.Float64bits(-1))
}
