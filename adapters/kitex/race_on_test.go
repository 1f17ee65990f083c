//go:build race

package sentinelkitex_test

const raceEnabled = true
