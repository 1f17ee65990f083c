//go:build race

package sentinelhertz_test

const raceEnabled = true
