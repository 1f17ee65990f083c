package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitPattern(t *testing.T) {
	tests := []struct{ pattern, method, path string }{
		{"/", "", "/"},
		{"/api/order", "", "/api/order"},
		{"GET /api/order", "GET", "/api/order"},
		{"GET  \t/api/order", "GET", "/api/order"},
		{"example.com/", "", "/"},
		{"POST example.com/a/{id}", "POST", "/a/{id}"},
		{"/{$}", "", "/{$}"},
		{"/files/{path...}", "", "/files/{path...}"},
		{"/go121 pattern with spaces", "", "/go121 pattern with spaces"}, // GODEBUG httpmuxgo121=1
		{"host/with space", "", "/with space"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			m, p := splitPattern(tt.pattern)
			assert.Equal(t, tt.method, m)
			assert.Equal(t, tt.path, p)
		})
	}
}

func TestMethodLabelKeepsResourceNamesBounded(t *testing.T) {
	assert.Equal(t, "GET", methodLabel("GET", ""))
	assert.Equal(t, "TRACE", methodLabel("TRACE", "GET"))
	assert.Equal(t, "OTHER", methodLabel("get", ""), "methods are case-sensitive")
	assert.Equal(t, "OTHER", methodLabel("X-ANYTHING", ""))
	assert.Equal(t, "PURGE", methodLabel("PURGE", "PURGE"))
	for i, m := range standardMethods {
		assert.Equal(t, i, methodSlot(m))
	}
}

func TestRouteCacheFindsEveryPatternAgain(t *testing.T) {
	var c routeCache
	patterns := make([]string, 300) // more than the recent slots: some share one
	for i := range patterns {
		patterns[i] = fmt.Sprintf("GET /api/v%d/order/{id}", i)
	}
	first := make([]*route, len(patterns))
	for i, p := range patterns {
		first[i] = c.get(p)
		assert.Equal(t, p, first[i].pattern)
		assert.Equal(t, fmt.Sprintf("/api/v%d/order/{id}", i), first[i].name)
	}
	for range 2 {
		for i, p := range patterns {
			assert.Same(t, first[i], c.get(strings.Clone(p)), p)
		}
	}
}
