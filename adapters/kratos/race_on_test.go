//go:build race

package sentinelkratos_test

const raceEnabled = true
