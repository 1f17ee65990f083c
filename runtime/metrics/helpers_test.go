package metrics_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/inforce"
)

// The tests would use prometheus/testutil's GatherAndCompare and
// GatherAndLint, but that package imports github.com/kylelemons/godebug,
// which go.sum does not list; these are the same checks on the same
// building blocks (expfmt's text format, promlint).

// gatherAndCompare gathers reg and compares the families named in names
// with want, in the text exposition format.
func gatherAndCompare(t *testing.T, reg prometheus.Gatherer, want string, names ...string) {
	t.Helper()
	got, err := reg.Gather()
	require.NoError(t, err)
	got = slices.DeleteFunc(got, func(mf *dto.MetricFamily) bool { return !slices.Contains(names, mf.GetName()) })
	p := expfmt.NewTextParser(model.UTF8Validation)
	wantMFs, err := p.TextToMetricFamilies(strings.NewReader(strings.TrimLeft(want, "\n")))
	require.NoError(t, err)
	var wantList []*dto.MetricFamily
	for _, mf := range wantMFs {
		wantList = append(wantList, mf)
	}
	slices.SortFunc(wantList, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	require.Equal(t, text(t, wantList), text(t, got))
}

func text(t *testing.T, mfs []*dto.MetricFamily) string {
	var b bytes.Buffer
	for _, mf := range mfs {
		_, err := expfmt.MetricFamilyToText(&b, mf)
		require.NoError(t, err)
	}
	return b.String()
}

// lint returns promlint's findings on what reg gathers.
func lint(t *testing.T, reg prometheus.Gatherer) []promlint.Problem {
	mfs, err := reg.Gather()
	require.NoError(t, err)
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	require.NoError(t, err)
	return problems
}

func inforceKind(name string, n int) inforce.Kind {
	return inforce.KindOf(name, func() []struct{} { return make([]struct{}, n) })
}
