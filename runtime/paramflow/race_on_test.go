//go:build race

package paramflow_test

const raceEnabled = true
