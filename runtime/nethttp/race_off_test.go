//go:build !race

package nethttp_test

const raceEnabled = false
