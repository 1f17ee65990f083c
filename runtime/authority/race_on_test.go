//go:build race

package authority_test

const raceEnabled = true
