package datasource

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An attacker's document: one rule with a hundred thousand duplicate
// members that each need a message (JSON allows duplicate keys). Reading it
// costs time in proportion to its size, not to its size squared.
func TestDuplicateMembersCostLinearTime(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`[{"x": 1`)
	for range 100_000 {
		b.WriteString(`, "count": true`)
	}
	b.WriteString(`, "resource": "a"}]`)
	start := time.Now()
	_, err := Flow.Decode("flow.json", b.Bytes())
	took := time.Since(start)
	require.Error(t, err)
	t.Logf("%d bytes read in %v", b.Len(), took)
	assert.Less(t, took, 20*time.Second, "a scan of the rule per message would take minutes")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.LessOrEqual(t, len(e.Rules), MaxRuleErrors)
}
