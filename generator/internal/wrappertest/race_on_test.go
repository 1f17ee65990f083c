//go:build race

package wrappertest

const raceEnabled = true
