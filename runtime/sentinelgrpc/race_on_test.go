//go:build race

package sentinelgrpc_test

const raceEnabled = true
