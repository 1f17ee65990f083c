package datasource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// A rule that blocks every call is valid and loads, and rules check warns
// about it; a dry run blocks nothing and is not warned about.
func TestCheckWarnsOnRulesThatBlockEveryCall(t *testing.T) {
	tests := []struct {
		name string
		kind datasource.Kind
		doc  string
		want []string
	}{
		{"flow count 0", datasource.Flow, `[{"resource":"a","count":0},{"resource":"b","count":5}]`,
			[]string{`flow.json:1:2: rule 0 (resource "a"): warning: count is 0: the rule blocks every call`}},
		{"flow count left out", datasource.Flow, `[{"resource":"a"}]`,
			[]string{`flow.json:1:2: rule 0 (resource "a"): warning: count is not set, so it is 0: the rule blocks every call`}},
		{"a dry run blocks nothing", datasource.Flow, `[{"resource":"a","count":0,"dryRun":true}]`, nil},
		{"hot-parameter count 0", datasource.ParamFlow, `[{"resource":"a","paramIdx":0,"count":0}]`,
			[]string{`paramFlow.json:1:2: rule 0 (resource "a"): warning: count is 0: the rule blocks every call that has the argument`}},
		{"system qps 0", datasource.System, `[{"qps":0}]`,
			[]string{`system.json:1:2: rule 0: warning: qps is 0: the rule blocks every inbound call`}},
		{"a combined document's section", datasource.Combined, `{"flow":[{"resource":"a","count":0}]}`,
			[]string{`combined.json:1:10: flow: rule 0 (resource "a"): warning: count is 0: the rule blocks every call`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range datasource.Check(tt.kind.Name()+".json", []byte(tt.doc), tt.kind, nil) {
				if p.Severity == datasource.SeverityWarning {
					got = append(got, p.String())
				}
			}
			a := assert.New(t)
			a.Len(got, len(tt.want), "%q", got)
			for i := range min(len(got), len(tt.want)) {
				a.Contains(got[i], tt.want[i])
			}
		})
	}
}
