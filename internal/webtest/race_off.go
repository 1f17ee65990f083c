//go:build !race

package webtest

const raceEnabled = false
