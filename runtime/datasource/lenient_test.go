package datasource_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// The flow rule template of Sentinel's own data source tests
// (ConsulDataSourceTest, StandaloneRedisDataSourceTest,
// ClusterModeRedisDataSourceTest), verbatim. Java parses it with
// fastjson's JSON.parseObject(source, new TypeReference<List<FlowRule>>(){})
// and asserts that FlowRuleManager.getRules() equals it: the quoted
// "0.0" is coerced to the double 0.0, refResource and controller null
// are left unset.
const sentinelTestTemplate = `[{"resource":"test", "limitApp":"default", "grade":1, "count":"0.0", "strategy":0, ` +
	`"refResource":null, ` +
	`"controlBehavior":0, "warmUpPeriodSec":10, "maxQueueingTimeMs":500, "controller":null}]`

func TestSentinelsOwnTestDocumentsLoad(t *testing.T) {
	clearAll(t)
	rep, err := datasource.LoadReport("consul", []byte(sentinelTestTemplate), datasource.Flow)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Rules)
	assert.Equal(t, []flow.Rule{{Resource: "test", LimitApp: "default", Grade: flow.GradeQPS, Count: 0,
		WarmUpPeriodSec: 10, MaxQueueingTimeMs: 500}}, flow.Rules())
	require.Len(t, rep.Warnings, 1, "the quoted count, and nothing for the nulls of unset fields")
	assert.Equal(t, `consul:1:63: rule 0 (resource "test"): warning: count "0.0" is a quoted number; read as 0.0, as fastjson and Jackson read it`,
		rep.Warnings[0].String())

	// EtcdDataSourceTest's rule1, pretty-printed with whole decimals for
	// the double count: standard JSON, no warning.
	etcd := "[\n  {\n    \"resource\": \"TestResource\",\n    \"controlBehavior\": 0,\n    \"count\": 5.0,\n" +
		"    \"grade\": 1,\n    \"limitApp\": \"default\",\n    \"strategy\": 0\n  }\n]"
	rep, err = datasource.LoadReport("etcd", []byte(etcd), datasource.Flow)
	require.NoError(t, err)
	assert.Empty(t, rep.Warnings)
	assert.Equal(t, 5.0, flow.Rules()[0].Count)
}

// Each shape Java's parsers accept loads with the value Java reads, and
// one warning that names the rule, the field and what was read.
func TestJavaShapesLoadWithAWarning(t *testing.T) {
	tests := []struct {
		name  string
		kind  datasource.Kind
		doc   string
		check func(t *testing.T)
		warn  []string
	}{
		// fastjson's FloatCodec / Jackson's NumberDeserializers parse a
		// string for a double.
		{"quoted count", datasource.Flow, `[{"resource":"a","count":"5"}]`,
			func(t *testing.T) { assert.Equal(t, 5.0, flow.Rules()[0].Count) },
			[]string{`f:1:26: rule 0 (resource "a"): warning: count "5" is a quoted number; read as 5, as fastjson and Jackson read it`}},
		// fastjson's IntegerCodec reads "1" for an int.
		{"quoted grade", datasource.Flow, `[{"resource":"a","grade":"0","count":1}]`,
			func(t *testing.T) { assert.Equal(t, flow.GradeThread, flow.Rules()[0].Grade) },
			[]string{`grade "0" is a quoted number; read as 0`}},
		// Nested fields too, and the warning names the whole path.
		{"quoted clusterConfig.flowId", datasource.Flow,
			`[{"resource":"a","count":1,"clusterMode":true,"clusterConfig":{"flowId":"1","fallbackToLocalWhenFail":true}}]`,
			func(t *testing.T) { assert.Equal(t, int64(1), flow.Rules()[0].ClusterConfig.FlowID) },
			[]string{`clusterConfig.flowId "1" is a quoted number; read as 1`}},
		// fastjson's BooleanCodec: "true"/"false" strings, 1 and 0.
		{"quoted boolean", datasource.Flow, `[{"resource":"a","count":1,"clusterMode":"false","regex":0}]`,
			func(t *testing.T) { assert.False(t, flow.Rules()[0].ClusterMode) },
			[]string{`clusterMode "false" is not a boolean; read as false, as fastjson reads it`,
				`regex 0 is not a boolean; read as false, as fastjson reads it`}},
		{"quoted paramIdx", datasource.ParamFlow, `[{"resource":"a","count":5,"paramIdx":"0"}]`,
			func(t *testing.T) { assert.Equal(t, 0, *paramflow.Rules()[0].ParamIdx) },
			[]string{`paramIdx "0" is a quoted number; read as 0`}},
		// Jackson's ACCEPT_FLOAT_AS_INT and fastjson's castToInt read a
		// whole decimal for an int field.
		{"whole decimal for an int field", datasource.Degrade, `[{"resource":"a","count":1,"timeWindow":10.0}]`,
			func(t *testing.T) { assert.Equal(t, 10, degrade.Rules()[0].TimeWindow) },
			[]string{`timeWindow 10.0 is a whole number written as a decimal; read as 10, as fastjson and Jackson read it`}},
		{"quoted whole decimal", datasource.Flow, `[{"resource":"a","count":1,"controlBehavior":1,"warmUpPeriodSec":"10.0"}]`,
			func(t *testing.T) { assert.Equal(t, 10, flow.Rules()[0].WarmUpPeriodSec) },
			[]string{`warmUpPeriodSec "10.0" is a quoted number; read as 10 (a whole number written as a decimal, read as 10)`}},
		// fastjson's JSONLexer skips comments wherever blanks may be.
		{"comments", datasource.Flow, "// flow rules of the order service\n[\n  /* the API */ {\"resource\":\"a\", // per second\n \"count\":3}\n]",
			func(t *testing.T) { assert.Equal(t, 3.0, flow.Rules()[0].Count) },
			[]string{`f:1:1: warning: 3 comments: JSON has no comments; fastjson skips them (so does this runtime), Jackson refuses the document`}},
		// fastjson reads arbitrary commas (Feature.AllowArbitraryCommas).
		{"trailing comma", datasource.Flow, "[{\"resource\":\"a\",\"count\":1,},\n]",
			func(t *testing.T) { assert.Len(t, flow.Rules(), 1) },
			[]string{`f:1:27: warning: 2 trailing commas before ] or }: fastjson accepts it (so does this runtime), Jackson refuses the document`}},
		// Jackson's ObjectMapper.readValue stops after the first value
		// (FAIL_ON_TRAILING_TOKENS is off by default).
		{"trailing text", datasource.Flow, "[{\"resource\":\"a\",\"count\":1}]\n]\n",
			func(t *testing.T) { assert.Len(t, flow.Rules(), 1) },
			[]string{`f:2:1: warning: text after the document is ignored ("]"): Jackson, as Spring Cloud Alibaba reads files, stops after the first JSON value; fastjson refuses the document`}},
		// fastjson leaves a field its default when the JSON has null.
		{"null grade is QPS", datasource.Flow, `[{"resource":"a","count":1,"grade":null,"clusterConfig":null,"refResource":null}]`,
			func(t *testing.T) {
				assert.Equal(t, flow.GradeQPS, flow.Rules()[0].Grade)
				assert.Nil(t, flow.Rules()[0].ClusterConfig)
			},
			[]string{`grade is null; read as its default 1, as fastjson reads it (Jackson would read 0)`}},
		{"number for a string", datasource.Flow, `[{"resource":12,"count":1}]`,
			func(t *testing.T) { assert.Equal(t, "12", flow.Rules()[0].Resource) },
			[]string{`resource 12 is not a string; read as "12", as fastjson and Jackson read it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearAll(t)
			rep, err := datasource.LoadReport("f", []byte(tt.doc), tt.kind)
			require.NoError(t, err)
			tt.check(t)
			var got []string
			for _, w := range rep.Warnings {
				got = append(got, w.String())
			}
			require.Len(t, got, len(tt.warn), "%q", got)
			for i, want := range tt.warn {
				assert.Contains(t, got[i], want)
			}
			// rules check prints the same warnings, and no error.
			ps := datasource.Check("f", []byte(tt.doc), tt.kind, nil)
			require.Len(t, ps, len(tt.warn))
			for i, p := range ps {
				assert.Equal(t, datasource.SeverityWarning, p.Severity)
				assert.Equal(t, got[i], p.String())
			}
		})
	}
}

// What no Java parser makes sense of stays refused, with an error that
// names the field by its whole path and points into the original text.
func TestStrictnessThatProtectsStays(t *testing.T) {
	tests := []struct {
		name string
		kind datasource.Kind
		doc  string
		want string
	}{
		{"NaN", datasource.Flow, `[{"resource":"a","count":NaN}]`, `f:1:26: JSON syntax error: invalid value NaN (NaN and Infinity are not JSON numbers)`},
		{"quoted NaN", datasource.Flow, `[{"resource":"a","count":"NaN"}]`, `f: rule 0 (resource "a"): count "NaN" is a string, want a number`},
		{"quoted Infinity", datasource.Flow, `[{"resource":"a","count":"Infinity"}]`, `f: rule 0 (resource "a"): count "Infinity" is a string, want a number`},
		{"negative count", datasource.Flow, `[{"resource":"a","count":"-1"}]`, `f: rule 0 (resource "a"): count -1 is negative; it must be >= 0 (0 blocks every call)`},
		{"uncoercible string", datasource.Flow, `[{"resource":"a","count":"ten"}]`, `f: rule 0 (resource "a"): count "ten" is a string, want a number`},
		{"boolean for a number", datasource.Flow, `[{"resource":"a","count":true}]`, `f: rule 0 (resource "a"): count true is a boolean, want a number`},
		{"fraction for an int field", datasource.Degrade, `[{"resource":"a","count":1,"timeWindow":10.5}]`, `f: rule 0 (resource "a"): timeWindow 10.5 is not a whole number`},
		{"nested field named by its path", datasource.Flow,
			`[{"resource":"a","count":1,"clusterMode":true,"clusterConfig":{"flowId":"one"}}]`,
			`f: rule 0 (resource "a"): clusterConfig.flowId "one" is a string, want a number`},
		{"item field named by its path", datasource.ParamFlow,
			`[{"resource":"a","paramIdx":0,"paramFlowItemList":[{"object":"x","count":"many"}]}]`,
			`f: rule 0 (resource "a"): paramFlowItemList[0].count "many" is a string, want a number`},
		{"not a rule document", datasource.Flow, `{"rules":[]}`, `f: want a JSON array of flow rules, found an object (a combined file {"flow": [...], ...} is read with datasource.Combined)`},
		{"syntax error after comments points into the original text", datasource.Flow,
			"// header\n/* two\n lines */\n[{\"resource\": \"a\" \"count\": 1}]",
			`f:4:19: JSON syntax error: invalid character '"' after object value (expecting ',' or '}')`},
		{"nesting is bounded", datasource.Flow, strings.Repeat("[", 1<<20), `f:1:10001: JSON syntax error: nested more than 10000 deep`},
		{"nesting is bounded past strings", datasource.Flow, `["[{\"",` + strings.Repeat("{", 20000), `f:1:10008: JSON syntax error: nested more than 10000 deep`},
		{"a byte that is not UTF-8 is shown escaped", datasource.Flow, "[{\"resource\": \"caf\xe9\"}]",
			`f:1:19: invalid UTF-8: byte \xe9 at offset 18, in "ource\": \"caf\xe9\"}]" (save the file as UTF-8)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearAll(t)
			_, err := datasource.Load("f", []byte(tt.doc), tt.kind)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			ps := datasource.Check("f", []byte(tt.doc), tt.kind, nil)
			require.NotEmpty(t, ps)
			assert.Equal(t, datasource.SeverityError, ps[0].Severity)
		})
	}
}

// Two shapes Java turns into zero rules without a word: rules check says
// what they are.
func TestCheckWarnsOnShapesJavaLoadsAsNoRule(t *testing.T) {
	dashboard := `[{"app":"order-service","ip":"10.0.0.1","port":8719,"rule":{"resource":"getOrder","limitApp":"appA","strategy":1}}]`
	ps := datasource.Check("authority.json", []byte(dashboard), datasource.Authority, nil)
	got := problemStrings(ps)
	require.Len(t, got, 3, "%q", got)
	assert.Contains(t, got, `authority.json:1:2: rule 0: warning: is wrapped in {"app": ..., "rule": {...}}, the Sentinel dashboard's rule entity; Java reads no resource from it and loads no rule: put the inner "rule" object in the array instead`)
	assert.Contains(t, strings.Join(got, "\n"), "rule 0: resource is required")

	gateway := `[{"resource":"order_route","resourceMode":0,"count":10,"paramItem":{"parseStrategy":2,"fieldName":"X-User"}}]`
	ps = datasource.Check("paramflow.json", []byte(gateway), datasource.ParamFlow, nil)
	got = problemStrings(ps)
	require.Len(t, got, 2, "%q", got)
	assert.Contains(t, got, `paramflow.json:1:2: rule 0 (resource "order_route"): warning: paramItem belongs to a gateway flow rule (GatewayFlowRule, for API gateways), not a hot-parameter rule; Java reads no paramIdx from it and loads no rule: a hot-parameter rule names its argument with paramIdx`)
	assert.Contains(t, strings.Join(got, "\n"), "paramIdx is missing")
}

// A combined document reads the same way, each warning with its section.
func TestCombinedDocumentWarnsPerSection(t *testing.T) {
	clearAll(t)
	doc := "{\n  // both kinds\n  \"flow\": [{\"resource\": \"a\", \"count\": \"2\"}],\n  \"degrade\": [{\"resource\": \"a\", \"count\": 1, \"timeWindow\": 5.0}]\n}"
	rep, err := datasource.LoadReport("rules.json", []byte(doc), datasource.Combined)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Rules)
	var got []string
	for _, w := range rep.Warnings {
		got = append(got, w.String())
	}
	assert.Equal(t, []string{
		`rules.json:2:3: warning: a comment: JSON has no comments; fastjson skips them (so does this runtime), Jackson refuses the document`,
		`rules.json:3:39: flow: rule 0 (resource "a"): warning: count "2" is a quoted number; read as 2, as fastjson and Jackson read it`,
		`rules.json:4:59: degrade: rule 0 (resource "a"): warning: timeWindow 5.0 is a whole number written as a decimal; read as 5, as fastjson and Jackson read it`,
	}, got)
}

func TestWarningsAreBounded(t *testing.T) {
	clearAll(t)
	var b strings.Builder
	b.WriteString("[")
	for i := range 500 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"resource":"a","count":"1"}`)
	}
	b.WriteString("]")
	rep, err := datasource.LoadReport("f", []byte(b.String()), datasource.Flow)
	require.NoError(t, err)
	require.Len(t, rep.Warnings, datasource.MaxWarnings+1)
	assert.Equal(t, "f: warning: and 400 more warnings", rep.Warnings[datasource.MaxWarnings].String())
}

// Plain JSON skips the hujson pass; the result must be the same as
// through it.
func TestPlainAndJavaPathsAgree(t *testing.T) {
	for _, doc := range []string{
		`[{"resource":"a","count":5,"grade":"QPS"}]`,
		`[{"resource":"a:\"1","count":5}]`,
		`[{"resource":"a","count":5}] `,
		"[{\"resource\":\"a\",\"count\":5}] // trailing",
		`[{"resource":"a","count":"5"}]`,
		`[{"resource":"a","count":5,"controlBehavior":null,"strategy":null}]`,
	} {
		clearAll(t)
		_, err := datasource.Load("f", []byte(doc), datasource.Flow)
		require.NoError(t, err, doc)
		got := flow.Rules()
		require.Len(t, got, 1, doc)
		assert.Equal(t, 5.0, got[0].Count, doc)
		assert.Equal(t, flow.GradeQPS, got[0].Grade, doc)
	}
}

func TestLineIndexAgreesWithPosition(t *testing.T) {
	clearAll(t)
	// Lint warnings of many rules, located through the line index.
	var b strings.Builder
	b.WriteString("[\n")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`  {"resource":"a","count":1,"controlBehavior":8}`)
	}
	b.WriteString("\n]")
	rep, err := datasource.LoadReport("f", []byte(b.String()), datasource.Flow)
	require.NoError(t, err)
	require.Len(t, rep.Warnings, datasource.MaxWarnings+1)
	for i, w := range rep.Warnings[:datasource.MaxWarnings] {
		assert.Equal(t, i+2, w.Line)
		assert.Equal(t, 3, w.Column)
	}
	assert.Equal(t, "and 200 more warnings", rep.Warnings[datasource.MaxWarnings].Message)
}
