package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every Go snippet in README.md and docs/ is code the repository compiles:
// its lines, in order, are lines of one Go file (an Example, a test, the
// tutorial package, a service), so a snippet cannot drift from the API.
// A line with "..." stands for what the snippet leaves out: it matches a
// line that starts with the text before the "...". Trailing comments and
// spacing do not count; a line that is only a comment does.
func TestEveryGoSnippetIsCompiledCode(t *testing.T) {
	files := goFiles(t)
	snippets := 0
	for _, page := range pages(t) {
		src, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, s := range goSnippets(string(src)) {
			snippets++
			found := ""
			for path, lines := range files {
				if containsInOrder(lines, s.lines) {
					found = path
					break
				}
			}
			assert.NotEmpty(t, found, "%s:%d: this Go snippet is in no Go file of the repository; write it as an Example (or test) and copy it from there:\n%s",
				page, s.line, strings.Join(s.lines, "\n"))
		}
	}
	assert.Greater(t, snippets, 10)
}

type snippet struct {
	line  int // of the opening fence
	lines []string
	text  string // as written, less the fence's indentation
}

var fenceOpen = regexp.MustCompile("^\\s*```go\\s*$")

func goSnippets(md string) []snippet {
	var out []snippet
	var cur *snippet
	var indent string // the fence's: a snippet in a list item is indented
	var text strings.Builder
	for i, l := range strings.Split(md, "\n") {
		switch {
		case cur == nil && fenceOpen.MatchString(l):
			cur = &snippet{line: i + 1}
			indent = l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			text.Reset()
		case cur != nil && strings.TrimSpace(l) == "```":
			cur.text = text.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			if n := normalize(l); n != "" {
				cur.lines = append(cur.lines, n)
			}
			text.WriteString(strings.TrimPrefix(l, indent) + "\n")
		}
	}
	return out
}

// normalize trims a line, collapses its spaces and drops a trailing comment.
func normalize(l string) string {
	l = strings.Join(strings.Fields(l), " ")
	if i := strings.Index(l, " // "); i > 0 {
		l = strings.TrimSpace(l[:i])
	}
	return l
}

// goFiles reads every Go file of the repository (every module), normalized.
func goFiles(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var lines []string
		for _, l := range strings.Split(string(src), "\n") {
			if n := normalize(l); n != "" {
				lines = append(lines, n)
			}
		}
		out[path] = lines
		return nil
	})
	require.NoError(t, err)
	return out
}

// containsInOrder reports whether want's lines are lines of have, in order.
func containsInOrder(have, want []string) bool {
	i := 0
	for _, h := range have {
		if i == len(want) {
			break
		}
		w := want[i]
		if pre, _, elided := strings.Cut(w, "..."); elided && strings.HasPrefix(h, strings.TrimSpace(pre)) || h == w {
			i++
		}
	}
	return i == len(want)
}

func TestContainsInOrder(t *testing.T) {
	have := []string{"a := f()", "if err != nil {", "return err", "}", "defer a.Close()"}
	assert.True(t, containsInOrder(have, []string{"a := f()", "if err != nil { ... }", "defer a.Close()"}))
	assert.False(t, containsInOrder(have, []string{"defer a.Close()", "a := f()"}), "order counts")
	assert.False(t, containsInOrder(have, []string{"a := g()"}))
	assert.Equal(t, "x := 1", normalize("\tx  :=   1 // one"))
	assert.Equal(t, `c := "http://host/path"`, normalize(`c := "http://host/path"`))
}
