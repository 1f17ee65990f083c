package metrics_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// gatherAndCompare gathers reg and compares the families named in names
// with want, in the text exposition format (testutil.GatherAndCompare).
func gatherAndCompare(t *testing.T, reg prometheus.Gatherer, want string, names ...string) {
	t.Helper()
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(strings.TrimLeft(want, "\n")), names...))
}

// lint returns promlint's findings on what reg gathers.
func lint(t *testing.T, reg prometheus.Gatherer) []promlint.Problem {
	t.Helper()
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	return problems
}

// countedKind is a rule kind of the application's own with n rules in
// force; only its name and count are read.
type countedKind struct {
	datasource.Kind
	name string
	n    int
}

func (k countedKind) Name() string { return k.name }
func (k countedKind) Count() int   { return k.n }
