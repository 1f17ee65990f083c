package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const paymentsSrc = `package svc

import "context"

//sentinel:decorate name=payments.{method}
type Payments interface {
	Charge(ctx context.Context, cents int) (string, error)
}
`

// A decorated interface's output is fresh until the interface changes:
// a method it gains makes it stale, and generating again makes it fresh
// with the same bytes every time.
func TestCheckSeesADecoratedInterfaceGainAMethod(t *testing.T) {
	dir, env := module(t, map[string]string{"svc/payments.go": paymentsSrc})
	out := filepath.Join(dir, "svc", "payments_sentinel.go")
	code, _, stderr := sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	first := read(t, out)
	assert.Contains(t, first, "func ProtectPayments(next Payments) Payments")

	code, stdout, stderr := sentinelgen(env, "-check", "./svc")
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout, "fresh")

	grown := strings.Replace(paymentsSrc, "error)\n", "error)\n\tRefund(ctx context.Context, id string) error\n", 1)
	write(t, filepath.Join(dir, "svc", "payments.go"), grown)
	code, stdout, _ = sentinelgen(env, "-check", "./svc")
	assert.Equal(t, 1, code)
	assert.Equal(t, "stale: "+filepath.Join("svc", "payments_sentinel.go")+"\n", stdout)
	assert.Equal(t, first, read(t, out), "-check writes nothing")

	code, _, stderr = sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	second := read(t, out)
	assert.Contains(t, second, `Refund calls next's Refund as the Sentinel resource "payments.Refund"`)
	code, _, stderr = sentinelgen(env, "./svc")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, second, read(t, out), "generating again writes the same bytes")
	code, stdout, stderr = sentinelgen(env, "-check", "./svc")
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
}

func TestDecorateMistakesAreReportedAndNothingIsWritten(t *testing.T) {
	src := "package svc\n\n//sentinel:decorate fallback=down\ntype Pinger interface {\n\tPing() bool\n}\n\nvar dwn Pinger\n"
	dir, env := module(t, map[string]string{"svc/pinger.go": src})
	code, _, stderr := sentinelgen(env, "./svc")
	assert.Equal(t, 1, code)
	assert.Equal(t, filepath.Join("svc", "pinger.go")+":3:30: fallback=down: down is not declared in package svc; did you mean dwn?\n", stderr)
	assert.NoFileExists(t, filepath.Join(dir, "svc", "pinger_sentinel.go"))
}
