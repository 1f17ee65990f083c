//go:build race

package degrade

import "sync/atomic"

// countPastMin counts one completion past the bucket's first minRequests on
// the call's stripe, atomically: the race detector cannot see the
// exclusion that count.go's pinning gives.
func (b *bucket) countPastMin(stripe int) {
	atomic.AddInt64(&b.cell(stripe&(stripes-1)).n, 1)
}
