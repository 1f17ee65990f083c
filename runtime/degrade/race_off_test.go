//go:build !race

package degrade_test

const raceEnabled = false
