//go:build !race

package sentinelgoframe_test

const raceEnabled = false
