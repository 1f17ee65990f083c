package annotations

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The key tables of the docs are kept by hand and checked here against
// the one table the parser uses: the tests print the table each should
// hold.

func TestPackageDocKeyTable(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	plain := func(s string) string { return strings.ReplaceAll(s, "`", "") }
	rows := [][3]string{{"key", "value", "default"}}
	for _, k := range keys {
		rows = append(rows, [3]string{k.name, plain(k.summary), plain(k.dflt)})
	}
	var w [2]int
	for _, r := range rows {
		w[0], w[1] = max(w[0], len(r[0])), max(w[1], len(r[1]))
	}
	var want strings.Builder
	for _, r := range rows {
		line := "//\t" + r[0] + strings.Repeat(" ", w[0]+2-len(r[0])) + r[1] + strings.Repeat(" ", w[1]+2-len(r[1])) + r[2]
		want.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	assert.Contains(t, string(src), want.String(), "annotations/doc.go's key table should read:\n%s", want.String())
}

func TestDirectiveDocKeyTable(t *testing.T) {
	src, err := os.ReadFile("../docs/directive.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(src), "\n## The directive\n")
	require.True(t, ok, "docs/directive.md has a section ## The directive")
	section, _, _ = strings.Cut(section, "\n## ")
	var want strings.Builder
	want.WriteString("| key | Java attribute | meaning | default |\n| --- | --- | --- | --- |\n")
	for _, k := range keys {
		java := "—"
		if len(k.java) > 0 {
			java = "`" + strings.Join(k.java, "`, `") + "`"
		}
		want.WriteString("| `" + k.name + "` | " + java + " | " + k.meaning + " | " + k.dflt + " |\n")
	}
	assert.Contains(t, section, want.String(), "docs/directive.md's directive table should read:\n%s", want.String())
}

func TestCommandDocKeyList(t *testing.T) {
	src, err := os.ReadFile("../cmd/sentinelgen/doc.go")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(strings.ReplaceAll(string(src), "//", " ")), " ")
	names := keyNames()
	want := "The keys are " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + ";"
	assert.Contains(t, text, want, "cmd/sentinelgen/doc.go lists the keys")
}
