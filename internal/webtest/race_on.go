//go:build race

package webtest

const raceEnabled = true
