//go:build !linux

package system

import (
	"errors"
	"fmt"
	goruntime "runtime"
)

// Elsewhere there is no reading: the load and CPU thresholds are off, and
// the sampler logs so once.
func defaultReader() Reader { return unsupported{} }

type unsupported struct{}

func (unsupported) SystemLoad() (float64, error) { return -1, errUnsupported }
func (unsupported) CPUUsage() (float64, error)   { return -1, errUnsupported }

var errUnsupported = fmt.Errorf("system: no load or CPU reading on %s: %w", goruntime.GOOS, errors.ErrUnsupported)
