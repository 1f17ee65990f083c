//go:build race

package adaptive_test

const raceEnabled = true
