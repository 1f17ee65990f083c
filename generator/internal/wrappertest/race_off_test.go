//go:build !race

package wrappertest

const raceEnabled = false
