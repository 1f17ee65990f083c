package datasource_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

// FuzzDecode: no input panics the decoder, a refused document loads
// nothing and says where, and an accepted one round-trips through Encode.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		``, ` `, `[]`, `null`, `{}`, `[null]`, `[1]`, `[[]]`, `"x"`,
		`[{"resource":"a"}]`,
		`[{"resource":"a","count":1e400}]`,
		`[{"resource":"a","count":NaN}]`,
		`[{"resource":"a","grade":"QPS","controlBehavior":3,"count":0}]`,
		`[{"resource":"a","grade":7}]`,
		`[{"resource":"a","grade":"1"}]`,
		`[{"resource":"a","grade":1.5}]`,
		`[{"resource":"a","count":-0}]`,
		`[{"resource":"a"`,
		"[{\"resource\":\"\xff\"}]",
		"\xEF\xBB\xBF[]",
		`{"flow":[{"resource":"a"}],"degrade":[]}`,
		`{"flow":null}`,
		`{"flwo":[]}`,
		// Misspelt thresholds: left unset, beside their field, repeated.
		`[{"resource":"a","cuont":20},{"resource":"b","count":1,"cuont":2}]`,
		`{"flow":[{"resource":"a","Cuont":1,"cuont":2,"coutn":3}]}`,
		// As Java's parsers read them: comments, trailing commas and text,
		// quoted scalars, whole decimals, nulls.
		"// rules\n[{\"resource\":\"a\" /* the API */, \"count\":\"5\"},]",
		"/* unterminated [{\"resource\":\"a\"}]",
		"[{\"resource\":\"a\"}]\n]garbage",
		`[{"resource":"a","count":"0.0","grade":"1","regex":"false"}]`,
		`[{"resource":"a","count":"NaN"}]`,
		`[{"resource":"a","count":"1e400","grade":1.0,"controlBehavior":"2.0"}]`,
		`[{"resource":7,"grade":null,"count":null,"limitApp":true}]`,
		`[{"app":"x","rule":{"resource":"a"}}]`,
		`{"flow":[{"resource":"a","count":"1"}],/* c */"degrade":[{"resource":"a","grade":"2"},],}`,
		`{"flow":[{"resource":"a",},],"degrade":null}`,
		strings.Repeat("[", 20000),
		"// [[[[\n[" + strings.Repeat(`{"a":`, 5000),
	}
	if files, _ := filepath.Glob("testdata/*.json"); len(files) > 0 {
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				seeds = append(seeds, string(data))
			}
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, combined := range []bool{false, true} {
			m, d := fakerules.New("flow"), fakerules.New("degrade")
			kind := m.Kind()
			if combined {
				kind = datasource.NewCombined(m.Kind(), d.Kind())
			}
			for _, p := range datasource.Check("f.json", data, kind, []string{"a", "getOrder"}) {
				require.Equal(t, "f.json", p.File)
				require.NotEmpty(t, p.Message)
			}
			n, err := datasource.Load("f.json", data, kind)
			if err != nil {
				require.Zero(t, m.Loads()+d.Loads(), "a refused document loaded rules")
				require.True(t, strings.HasPrefix(err.Error(), "f.json"), "error does not name the document: %v", err)
				continue
			}
			require.Equal(t, len(m.Rules())+len(d.Rules()), n)
			out, err := kind.Encode()
			require.NoError(t, err)
			m2, d2 := fakerules.New("flow"), fakerules.New("degrade")
			kind2 := m2.Kind()
			if combined {
				kind2 = datasource.NewCombined(m2.Kind(), d2.Kind())
			}
			_, err = datasource.Load("g.json", out, kind2)
			require.NoError(t, err, "encoded rules do not load back: %s", out)
			require.Equal(t, m.Rules(), m2.Rules())
		}
	})
}

// FuzzDecodeJava runs the real rule packages' decoders and validators
// (nothing is loaded, so no rule in force changes): no input panics them,
// and every refusal names the document.
func FuzzDecodeJava(f *testing.F) {
	f.Add([]byte(`{"flow":[{"resource":"a","count":1,"controlBehavior":"WarmUp"}],"degrade":[{"resource":"a","grade":2,"count":1,"timeWindow":1}]}`))
	f.Add([]byte(`{"system":[{"qps":1e400}],"authority":[{"resource":"a","limitApp":"x","strategy":"black"}]}`))
	f.Add([]byte(`{"paramFlow":[{"resource":"a","paramIdx":-1,"count":1,"paramFlowItemList":[{"object":"7","classType":"int","count":1}]}]}`))
	f.Add([]byte("// Java's template\n{\"flow\":[{\"resource\":\"test\",\"count\":\"0.0\",\"refResource\":null,\"clusterMode\":\"true\",\"clusterConfig\":{\"flowId\":\"1\"}}],}"))
	f.Add([]byte(`{"degrade":[{"resource":"a","count":"1","timeWindow":10.0,"minRequestAmount":"5.0"}],"paramFlow":[{"resource":"b","paramIdx":"0","controlBehavior":1,"paramItem":{}}]}`))
	f.Add([]byte(`{"adaptive":[{"resource":"a","minLimit":"2","maxLimit":1e9,"rttTolerance":"NaN","probeIntervalMs":-1}]}`))
	if files, _ := filepath.Glob("testdata/*.json"); len(files) > 0 {
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	kinds := []datasource.Kind{datasource.Flow, datasource.Degrade, datasource.System, datasource.Authority, datasource.ParamFlow, datasource.Adaptive, datasource.Combined}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range kinds {
			rs, err := k.Decode("f.json", data)
			if err == nil {
				err = rs.Validate()
				for _, w := range rs.Warnings() {
					require.Equal(t, "f.json", w.Name)
					require.NotEmpty(t, w.Message)
				}
			}
			if err != nil {
				require.True(t, strings.HasPrefix(err.Error(), "f.json"), "error does not name the document: %v", err)
			}
		}
	})
}

// FuzzDetectKind: `sentinelgen rules check` tells a document's kind from
// its name and content; no input panics it, and a document of the kind it
// names is checked, each problem naming the file.
func FuzzDetectKind(f *testing.F) {
	for _, seed := range [][2]string{
		{"flow.json", `[{"resource":"a","count":1}]`},
		{"rules.json", `[{"resource":"a","timeWindow":10}]`},
		{"x.json", `[{"resource":"a","limitApp":"b","strategy":1}]`},
		{"sentinel-system.json", `[{"highestSystemLoad":2}]`},
		{"all.json", `{"flow":[],"paramFlow":[{"resource":"a","paramIdx":0}]}`},
		{"paramflow.json", "// c\n[{\"resource\":\"a\",},]"},
		{"", `[null,1,"x",{}]`},
		{"\xff.json", `{"` + strings.Repeat("flow", 64) + `":[]}`},
	} {
		f.Add(seed[0], []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		kind, err := datasource.DetectKind(name, data)
		if err != nil {
			return
		}
		require.NotNil(t, kind)
		for _, p := range datasource.Check(name, data, kind, []string{"a", "getOrder"}) {
			require.Equal(t, name, p.File)
			require.NotEmpty(t, p.Message)
		}
	})
}
