package datasource_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

func typoWarnings(ws []datasource.Warning) []string {
	var out []string
	for _, w := range ws {
		if strings.Contains(w.Message, "did you mean") {
			out = append(out, w.String())
		}
	}
	return out
}

func TestMisspeltFieldsAreWarningsWithTheFieldMeant(t *testing.T) {
	tests := []struct {
		name string
		kind datasource.Kind
		doc  string
		want []string
	}{
		{"cout beside count is a stray field", datasource.Flow,
			`[{"resource":"getOrder","grade":1,"count":3,"cout":3}]`,
			[]string{`flow.json:1:45: rule 0 (resource "getOrder"): warning: cout is not a field of this rule; did you mean "count"? It is ignored, as Java ignores unknown fields, so count keeps its default 0`}},
		{"British spelling", datasource.Flow,
			`[{"resource":"getOrder","count":3,"controlBehaviour":2}]`,
			[]string{`flow.json:1:35: rule 0 (resource "getOrder"): warning: controlBehaviour is not a field of this rule; did you mean "controlBehavior"? It is ignored, as Java ignores unknown fields, so controlBehavior keeps its default 0`}},
		{"inside clusterConfig", datasource.Flow,
			`[{"resource":"getOrder","count":3,"clusterMode":true,"clusterConfig":{"flowId":1,"fallbackToLocalWhenFial":true}}]`,
			[]string{`flow.json:1:82: rule 0 (resource "getOrder"): warning: clusterConfig.fallbackToLocalWhenFial is not a field of this rule; did you mean "clusterConfig.fallbackToLocalWhenFail"? It is ignored, as Java ignores unknown fields, so clusterConfig.fallbackToLocalWhenFail keeps its default true`}},
		{"degrade", datasource.Degrade,
			`[{"resource":"payOrder","grade":0,"count":200,"timeWindow":10,"minRequestAmout":20}]`,
			[]string{`degrade.json:1:63: rule 0 (resource "payOrder"): warning: minRequestAmout is not a field of this rule; did you mean "minRequestAmount"? It is ignored, as Java ignores unknown fields, so minRequestAmount keeps its default 5`}},
		{"system", datasource.System,
			`[{"highestCpuUsage":0.8,"dryRn":true}]`,
			[]string{`system.json:1:25: rule 0: warning: dryRn is not a field of this rule; did you mean "dryRun"? It is ignored, as Java ignores unknown fields, so dryRun keeps its default false`}},
		{"authority", datasource.Authority,
			`[{"resource":"a","limitApp":"x","strategy":1,"regx":true}]`,
			[]string{`authority.json:1:46: rule 0 (resource "a"): warning: regx is not a field of this rule; did you mean "regex"? It is ignored, as Java ignores unknown fields, so regex keeps its default false`}},
		{"hot parameter, in a commented file", datasource.ParamFlow,
			"[{\"resource\":\"a\",\"paramIdx\":0,\"count\":5,\"durationInSecs\":2} // slow path\n]",
			[]string{`paramFlow.json:1:41: rule 0 (resource "a"): warning: durationInSecs is not a field of this rule; did you mean "durationInSec"? It is ignored, as Java ignores unknown fields, so durationInSec keeps its default 1`}},
		{"case alone is no typo: encoding/json reads it", datasource.Flow,
			`[{"resource":"getOrder","COUNT":3,"maxQueueingTimeMS":10}]`, nil},
		{"a field far from every known one is left alone", datasource.Flow,
			`[{"resource":"getOrder","count":3,"owner":"team-a","note":"x"}]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := tt.kind.Decode(tt.kind.Name()+".json", []byte(tt.doc))
			require.NoError(t, err)
			require.NoError(t, set.Validate(), "a typo never refuses by itself")
			assert.Equal(t, tt.want, typoWarnings(set.Warnings()))
		})
	}
}

func TestARefusalATypoCausedNamesTheTypo(t *testing.T) {
	_, err := datasource.Flow.Decode("flow.json", []byte(`[{"resource":"getOrder","count":3,"strategy":1,"refResorce":"other"}]`))
	require.NoError(t, err)
	set, _ := datasource.Flow.Decode("flow.json", []byte(`[{"resource":"getOrder","count":3,"strategy":1,"refResorce":"other"}]`))
	err = set.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `refResource`)
	assert.Contains(t, err.Error(), `(the rule has "refResorce": did you mean "refResource"?)`)

	set, _ = datasource.Degrade.Decode("degrade.json", []byte(`[{"resource":"payOrder","grade":0,"count":200,"timeWindw":10}]`))
	assert.EqualError(t, set.Validate(), `degrade.json: rule 0 (resource "payOrder"): timeWindow 0 must be > 0 (seconds an open breaker waits before a probe) (the rule has "timeWindw": did you mean "timeWindow"?)`)

	// In a combined document too, and under Java's skipping policy.
	doc := `{"flow":[{"resource":"getOrder","count":3,"strategy":1,"refResorce":"other"}],"degrade":[]}`
	_, err = datasource.LoadReport("rules.json", []byte(doc), datasource.Combined)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `rules.json: flow: rule 0 (resource "getOrder"): refResource`)
	assert.Contains(t, err.Error(), `did you mean "refResource"?`)
	require.NoError(t, flow.LoadRules(nil))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	rep, err := datasource.LoadReport("flow.json", []byte(`[{"resource":"a","count":1},{"resource":"getOrder","count":3,"strategy":1,"refResorce":"other"}]`),
		datasource.Flow, datasource.WithPolicy(datasource.SkipInvalid))
	require.NoError(t, err)
	var skipped string
	for _, w := range rep.Warnings {
		if strings.Contains(w.Message, "skipped") {
			skipped = w.Message
		}
	}
	assert.Contains(t, skipped, `did you mean "refResource"?`)
}

func TestMisspeltFieldsAreReportedByEverySurface(t *testing.T) {
	// rules check: a misspelt threshold left unset is an error
	ps := datasource.Check("flow.json", []byte(`[{"resource":"getOrder","grade":1,"cout":3}]`), datasource.Flow, nil)
	require.NotEmpty(t, ps)
	assert.Equal(t, datasource.SeverityError, ps[0].Severity)
	assert.Equal(t, "count", ps[0].Field)
	assert.Contains(t, ps[0].Message, `did you mean "count"?`)
	// a misspelt field beside its own: a warning
	ps = datasource.Check("flow.json", []byte(`[{"resource":"getOrder","count":3,"maxQueueingTimeMss":3}]`), datasource.Flow, nil)
	require.Len(t, ps, 1)
	assert.Equal(t, datasource.SeverityWarning, ps[0].Severity)
	assert.Equal(t, "maxQueueingTimeMss", ps[0].Field)
	// a load's report (what LastWarnings, the log and the dashboard read)
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	rep, err := datasource.LoadReport("flow.json", []byte(`[{"resource":"getOrder","count":3,"maxQueueingTimeMss":3}]`), datasource.Flow)
	require.NoError(t, err)
	assert.Len(t, typoWarnings(rep.Warnings), 1)
	// a combined document's sections, and its section names
	doc := `{"flow":[{"resource":"getOrder","count":3}],"degarde":[]}`
	_, err = datasource.Combined.Decode("rules.json", []byte(doc))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown rule kind "degarde" (did you mean "degrade"?)`)
	set, err := datasource.Combined.Decode("rules.json", []byte(`{"flow":[{"resource":"getOrder","count":3,"cout":3}]}`))
	require.NoError(t, err)
	ws := set.Warnings()
	require.Len(t, ws, 1)
	assert.Equal(t, "flow", ws[0].Section)
	assert.Equal(t, `rules.json:1:43: flow: rule 0 (resource "getOrder"): warning: cout is not a field of this rule; did you mean "count"? It is ignored, as Java ignores unknown fields, so count keeps its default 0`, ws[0].String())
}

// What the dashboard exports and what Java's rule classes write, for every
// kind: none of it is ever taken for a typo, in any kind's file (a flow
// field in a degrade file is a wrong file, not a typo).
func TestDashboardAndJavaFieldsAreNeverTypos(t *testing.T) {
	fields := []string{
		// the dashboard's RuleEntity and MetricEntity fields
		"id", "app", "ip", "port", "gmtCreate", "gmtModified", "passCount", "blockCount", "successCount",
		"exceptionCount", "passQps", "blockQps", "successQps", "exceptionQps", "rt", "timestamp", "resourceCode", "rule",
		// FlowRule, ClusterFlowConfig
		"resource", "limitApp", "grade", "count", "strategy", "refResource", "controlBehavior", "warmUpPeriodSec",
		"maxQueueingTimeMs", "clusterMode", "clusterConfig", "regex", "flowId", "thresholdType",
		"fallbackToLocalWhenFail", "sampleCount", "windowIntervalMs", "resourceTimeout", "resourceTimeoutStrategy",
		"acquireRefuseStrategy", "clientOfflineTime",
		// DegradeRule
		"timeWindow", "minRequestAmount", "slowRatioThreshold", "statIntervalMs",
		// SystemRule
		"highestSystemLoad", "highestCpuUsage", "qps", "avgRt", "maxThread",
		// ParamFlowRule, ParamFlowItem
		"paramIdx", "burstCount", "durationInSec", "paramFlowItemList", "hotItems", "parsedHotItems", "object", "classType",
		// gateway rules' fields a misfiled export may carry
		"paramItem", "intervalSec", "resourceMode", "parseStrategy", "fieldName", "pattern", "matchStrategy",
	}
	for _, k := range datasource.Kinds() {
		for _, f := range fields {
			doc := fmt.Sprintf(`[{"resource":"a","limitApp":"default","paramIdx":0,"count":1,%q:1}]`, f)
			set, err := k.Decode("x.json", []byte(doc))
			if err != nil {
				continue // a value of the wrong type for a field the kind has: not what this test is about
			}
			assert.Empty(t, typoWarnings(set.Warnings()), "%s in a %s file", f, k.Name())
		}
	}
}

// An attacker's file: every rule misspells fields, each a distinct name.
// The warnings stay bounded (the first MaxWarnings, then a count), every
// typo is still counted, and each name costs a bounded comparison.
func TestMisspeltFieldsInEveryRuleAreBounded(t *testing.T) {
	doc := misspeltDoc(5_000)
	set, err := datasource.Flow.Decode("flow.json", doc)
	require.NoError(t, err)
	ws := set.Warnings()
	require.Len(t, ws, datasource.MaxWarnings+1)
	assert.Equal(t, fmt.Sprintf("and %d more warnings", 3*5_000-datasource.MaxWarnings), ws[len(ws)-1].Message)
	long := fmt.Sprintf(`[{"resource":"a","count":1,%q:1}]`, strings.Repeat("controlBehavior", 100))
	set, err = datasource.Flow.Decode("flow.json", []byte(long))
	require.NoError(t, err)
	assert.Empty(t, typoWarnings(set.Warnings()), "a name far longer than any field is no typo")
}

// misspeltDoc is n flow rules, each with three misspelt fields of names
// no other rule uses.
func misspeltDoc(n int) []byte {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"resource":"r%d","count":1,"coun%d":3,"controlBehaviour":1,"refResorce%d":"x"}`, i, i%10, i%10)
	}
	sb.WriteByte(']')
	return []byte(sb.String())
}

// BenchmarkDecodeMisspelt10000 decodes 10,000 flow rules with three
// misspelt fields each: the walk for typos at its worst.
func BenchmarkDecodeMisspelt10000(b *testing.B) {
	doc := misspeltDoc(10_000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := datasource.Flow.Decode("flow.json", doc); err != nil {
			b.Fatal(err)
		}
	}
}
