package cluster

import "github.com/sentinelgen/sentinelgen/runtime/flow"

// MaxWindowBuckets is the most buckets a window hash in Redis holds. A
// rule may ask for more (Java accepts sampleCount 1,000,000 over
// windowIntervalMs 1,000,000: 1 ms buckets over 1,000 s), but every check
// reads the whole hash, on the one Redis thread the fleet shares, so a
// check's cost would grow with time to a million fields. Past the cap the
// window keeps its length and is cut into MaxWindowBuckets buckets of
// ceil(windowIntervalMs / MaxWindowBuckets) ms: coarser buckets forget
// admissions later, never sooner, so the fleet still never admits more
// than count in any window of the rule's length that starts on a bucket
// boundary.
const MaxWindowBuckets = 100

// windowShape is the sample count and bucket length (ms) the script
// uses for a rule's sampleCount and windowIntervalMs (0: Java's defaults).
func windowShape(samples, windowMs int) (buckets, bucketMs int) {
	if samples <= 0 {
		samples = flow.DefaultClusterSampleCount
	}
	if windowMs <= 0 {
		windowMs = flow.DefaultClusterWindowIntervalMs
	}
	if samples > MaxWindowBuckets {
		samples = MaxWindowBuckets
	}
	bucketMs = (windowMs + samples - 1) / samples
	return samples, max(bucketMs, 1)
}
