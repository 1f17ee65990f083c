package datasource_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// junkArray is a JSON array of n copies of el, about size bytes.
const junkSize = 512 << 10

func junkArray(el string, size int) string {
	n := size / (len(el) + 1)
	return "[" + strings.TrimSuffix(strings.Repeat(el+",", n), ",") + "]"
}

// A 4 MiB document of numbers used to make a 118 MB error, kept as
// LastError and served to the dashboard every second. The bound does not
// depend on the document's size; 512 KiB keeps the test quick under -race.
func TestRuleErrorsAreBounded(t *testing.T) {
	clearAll(t)
	tests := []struct {
		name, doc string
	}{
		{"numbers fail decoding", junkArray("1", junkSize)},
		{"empty rules fail validation", junkArray("{}", junkSize)},
		{"misspelt thresholds", junkArray(`{"resource":"a","cuont":1}`, junkSize)},
		{"long resources with newlines", junkArray(`{"resource":"`+strings.Repeat(`x\n`, 20_000)+`","count":-1}`, junkSize)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := datasource.Load("flow.json", []byte(tt.doc), datasource.Flow)
			require.Error(t, err)
			msg := err.Error()
			assert.Less(t, len(msg), 64<<10, "bounded message")
			assert.True(t, utf8.ValidString(msg))
			lines := strings.Split(msg, "\n")
			assert.LessOrEqual(t, len(lines), datasource.MaxRuleErrors+1)
			for _, l := range lines {
				assert.LessOrEqual(t, len(l), datasource.MaxErrorLine+datasource.MaxErrorLine/2)
			}
			var de *datasource.Error
			require.True(t, errors.As(err, &de))
			assert.Len(t, de.Rules, min(datasource.MaxRuleErrors, len(de.Rules)+de.Omitted))
			if de.Omitted > 0 {
				assert.Contains(t, lines[len(lines)-1], "more invalid rules")
			}
			var re *runtime.RuleError
			assert.True(t, errors.As(err, &re), "each kept rule error is still found")
			assert.Empty(t, flow.Rules(), "nothing loaded")
		})
	}
}

func TestRuleErrorsCountTheRest(t *testing.T) {
	doc := junkArray("1", 1000) // 500 numbers
	_, err := datasource.Flow.Decode("flow.json", []byte(doc))
	var de *datasource.Error
	require.True(t, errors.As(err, &de))
	assert.Len(t, de.Rules, datasource.MaxRuleErrors)
	assert.Equal(t, 500-datasource.MaxRuleErrors, de.Omitted)
	assert.True(t, strings.HasSuffix(err.Error(), "flow.json: ... and 400 more invalid rules"), err.Error())
}

// A write-back to a key (etcd, Redis) checked that it decodes, but not
// that it fits the cap the watching sources read.
func TestEncodeCheckedRefusesWhatIsOverTheCap(t *testing.T) {
	m := fakerules.New("flow")
	many := make([]fakerules.Rule, 100)
	for i := range many {
		many[i] = fakerules.Rule{Resource: "r" + strings.Repeat("x", i), Grade: 1, Count: 1}
	}
	require.NoError(t, m.LoadRules(many))
	_, err := datasource.EncodeCheckedMax("etcd:/rules", m.Kind(), 1024)
	require.ErrorIs(t, err, datasource.ErrWouldNotLoad)
	require.ErrorIs(t, err, datasource.ErrTooLarge)
	data, err := datasource.EncodeChecked("etcd:/rules", m.Kind())
	require.NoError(t, err)
	assert.NotContains(t, string(data), "\n", "compact")
}

// The "did you mean" for an unknown section name compared the whole name
// with every kind's: a 4 MiB name took 0.46 s to refuse on a quiet
// machine, where a document of the same size with a long string value
// took 55 ms. Refusing it now costs about what reading it costs.
func TestAHugeUnknownSectionNameCostsWhatReadingItCosts(t *testing.T) {
	clearAll(t)
	size := 4<<20 - 64
	name := `{"` + strings.Repeat("flow", size/4) + `": []}`
	value := `{"flow": [{"resource": "` + strings.Repeat("flow", size/4) + `"}]}`
	decode := func(doc string) (time.Duration, error) {
		var err error
		return minDuration(func() { _, err = datasource.Combined.Decode("rules.json", []byte(doc)) }), err
	}
	refused, err := decode(name)
	require.ErrorContains(t, err, "unknown rule kind")
	assert.Less(t, len(err.Error()), 2*datasource.MaxErrorLine, "the name is cut in the message")
	read, err := decode(value)
	require.NoError(t, err)
	assert.Less(t, refused, 3*read+50*time.Millisecond, "refusing the name took %v, reading a value of its size %v", refused, read)
}

// minDuration is the quickest of three runs of f: the one least slowed by
// whatever else the machine is doing.
func minDuration(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}
