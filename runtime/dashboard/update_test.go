package dashboard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

func TestRuleUpdatesAreOffByDefault(t *testing.T) {
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	code, body := put(t, srv, "/api/rules/flow", `[{"resource":"x","count":1}]`)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, "rule updates are off")
	assert.Empty(t, flow.Rules())
}

func TestRuleUpdateLoadsAndSaves(t *testing.T) {
	defer flow.LoadRules(nil)
	path := filepath.Join(t.TempDir(), "flow.json")
	srv := httptest.NewServer(dashboard.New(dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: datasource.Flow, Path: path})))
	defer srv.Close()

	var s dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &s)
	assert.Equal(t, []string{"flow"}, s.Editable)

	code, body := put(t, srv, "/api/rules/flow", `[{"resource":"dashboard.update","count":3,"id":17,"app":"demo"}]`)
	require.Equal(t, http.StatusOK, code, body)
	assert.JSONEq(t, `{"kind":"flow","loaded":1,"saved":"`+path+`"}`, body)
	require.Len(t, flow.Rules(), 1)
	assert.Equal(t, "dashboard.update", flow.Rules()[0].Resource)
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(saved), `"resource":"dashboard.update"`)
	assert.Contains(t, string(saved), `"grade":1`, "Java's field names and codes, defaults filled in")

	// The saved file is what a restarted process loads.
	require.NoError(t, flow.LoadRules(nil))
	src, err := file.Watch(context.Background(), path, datasource.Flow, file.WithoutFSNotify())
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.LastError())
	require.Len(t, flow.Rules(), 1)
	assert.Equal(t, "dashboard.update", flow.Rules()[0].Resource)
}

func TestRefusedRuleUpdatesChangeNothing(t *testing.T) {
	defer flow.LoadRules(nil)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "dashboard.kept", Grade: flow.GradeQPS, Count: 1}}))
	path := filepath.Join(t.TempDir(), "flow.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"resource":"dashboard.kept","count":1}]`), 0o644))
	srv := httptest.NewServer(dashboard.New(dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: datasource.Flow, Path: path})))
	defer srv.Close()

	tests := []struct {
		name, path, body string
		code             int
		message          string
	}{
		{"invalid rule", "/api/rules/flow", `[{"resource":"x","count":-1}]`, http.StatusBadRequest, "count -1 is negative"},
		{"malformed JSON", "/api/rules/flow", `[{"resource":`, http.StatusBadRequest, "api/rules/flow"},
		{"kind not offered", "/api/rules/degrade", `[]`, http.StatusNotFound, `these can: [flow]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := put(t, srv, tt.path, tt.body)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, body, tt.message)
			require.Len(t, flow.Rules(), 1)
			assert.Equal(t, "dashboard.kept", flow.Rules()[0].Resource)
			saved, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, `[{"resource":"dashboard.kept","count":1}]`, string(saved))
		})
	}
}

func TestRuleUpdateThatCannotBeSaved(t *testing.T) {
	defer flow.LoadRules(nil)
	rf := dashboard.RuleFile{Kind: datasource.Flow, Save: func(datasource.Kind) error { return errors.New("disk full") }}
	srv := httptest.NewServer(dashboard.New(dashboard.WithRuleUpdates(rf)))
	defer srv.Close()
	code, body := put(t, srv, "/api/rules/flow", `[{"resource":"dashboard.unsaved","count":2}]`)
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "in force but were not saved: disk full")
	assert.Len(t, flow.Rules(), 1, "the rules are in force; the answer says they are not saved")
}
