package datasource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

// Check notes each dry-run rule, where it starts, whether or not the
// resources are cross-checked; enforcing rules get no note.
func TestCheckNotesDryRunRules(t *testing.T) {
	doc := `[{"resource":"a"},
 {"resource":"b","dryRun":true},
 {"resource":"c","dryRun":false}]`
	ps := datasource.Check("flow.json", []byte(doc), fakerules.New("flow").Kind(), nil)
	assert.Equal(t, []string{
		`flow.json:2:2: rule 1 (resource "b"): note: dry run: admits every call, counting those it would block; Java Sentinel ignores dryRun and would enforce this rule`,
	}, problemStrings(ps))
	assert.Equal(t, datasource.SeverityNote, ps[0].Severity)
	assert.Equal(t, "note", datasource.SeverityNote.String())

	c := newCombo()
	ps = datasource.Check("rules.json", []byte(`{"flow":[{"resource":"a","dryRun":true}],"degrade":[{"resource":"a","dryRun":true}]}`), c.kind, []string{"a"})
	assert.Len(t, ps, 2)
	assert.Equal(t, "flow", ps[0].Section, "in document order")
	assert.Equal(t, "degrade", ps[1].Section)
}
