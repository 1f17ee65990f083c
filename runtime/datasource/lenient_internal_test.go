package datasource

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
)

type probeRule struct {
	Resource string  `json:"resource"`
	Grade    int     `json:"grade"`
	Count    float64 `json:"count"`
	Regex    bool    `json:"regex"`
	Nested   *struct {
		FlowID int64 `json:"flowId"`
	} `json:"clusterConfig"`
}

// FuzzPlainPathAgrees: the one-pass path that plain JSON of known members
// takes reads the same rules as the path through hujson and the
// coercions.
func FuzzPlainPathAgrees(f *testing.F) {
	for _, s := range []string{
		`[{"resource":"a","count":1}]`,
		`[{"resource":"a","count":1.5,"grade":2,"regex":true,"clusterConfig":{"flowId":3}}]`,
		`[{"Resource":"a","COUNT":1}]`,
		`[{"resource":"a:\"1","count":1}]`,
		`[{"resource":"a","count":1,"extra":[1,{"x":null}]}]`,
	} {
		f.Add([]byte(s))
	}
	k := NewKind("probe", runtime.NewProperty(func([]probeRule) error { return nil }),
		func([]probeRule) error { return nil }, func() []probeRule { return nil }).(*ruleKind[probeRule])
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := checkText("f", data)
		if err != nil || !plainJSON(text) || !knownMembers(text, k.docSchema()) {
			return // Decode reads it the slow way (an unknown member may be a typo to warn of)
		}
		fast := k.strict("f", text)
		if fast == nil {
			return
		}
		jt, err := readJava("f", text, k.docSchema())
		require.NoError(t, err)
		slow, err := k.decodeStd("f", jt.std, jt.errs[""])
		require.NoError(t, err)
		require.True(t, reflect.DeepEqual(fast.rules, slow.rules), "%v != %v", fast.rules, slow.rules)
		require.Empty(t, jt.warns, "plain JSON that decodes has nothing to warn about")
	})
}
