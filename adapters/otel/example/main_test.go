package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheDemoExportsMetricsAndTracesToStdout(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), []string{"-otel", "stdout", "-demo", "400ms"}, &out))
	s := out.String()
	assert.Contains(t, s, "demo: ")
	assert.Contains(t, s, `"Name":"sentinel.resource.pass"`)
	assert.Contains(t, s, `"Name":"sentinel.resource.call.duration"`, "getOrder's histogram")
	assert.Contains(t, s, `"Name":"sentinel.block"`, "a refused request's event on its server span")
	assert.Contains(t, s, `"Name":"exception"`, "a bad id's business error on its server span")
}

func TestTheDemoExportsOverOTLP(t *testing.T) {
	var mu sync.Mutex
	posts := map[string]int{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		posts[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	endpoint := strings.TrimPrefix(collector.URL, "http://")

	var out strings.Builder
	require.NoError(t, run(context.Background(), []string{"-otel", "otlp", "-otlp-endpoint", endpoint, "-demo", "300ms"}, &out))
	mu.Lock()
	defer mu.Unlock()
	assert.Positive(t, posts["POST /v1/metrics"], "metrics: %v", posts)
	assert.Positive(t, posts["POST /v1/traces"], "traces: %v", posts)
}

func TestBadFlagsAreRefused(t *testing.T) {
	err := run(context.Background(), []string{"-otel", "zipkin"}, &strings.Builder{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `-otel "zipkin": want stdout, otlp or none`)
}
