//go:build !race

package paramflow_test

const raceEnabled = false
