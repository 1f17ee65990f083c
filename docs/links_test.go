// Package docs_test holds the repository's documentation to its files: every
// relative link in README.md and the pages under docs/ resolves, anchors
// included.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pages are the Markdown files whose links are checked, relative to docs/.
func pages(t *testing.T) []string {
	t.Helper()
	ps, err := filepath.Glob("*.md")
	require.NoError(t, err)
	require.NotEmpty(t, ps, "docs/ has pages")
	return append([]string{"../README.md"}, ps...)
}

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	fence   = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
)

// slug is GitHub's anchor for a heading: lower case, punctuation other than
// hyphens and underscores dropped, spaces to hyphens.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	text := fence.ReplaceAllString(string(src), "")
	as := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		as[slug(m[1])] = true
	}
	return as
}

func TestEveryRelativeLinkResolves(t *testing.T) {
	checked := 0
	for _, page := range pages(t) {
		src, err := os.ReadFile(page)
		require.NoError(t, err)
		text := fence.ReplaceAllString(string(src), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
				_, err := os.Stat(file)
				if !assert.NoError(t, err, "%s links to %s, which does not exist", page, target) {
					continue
				}
			}
			if anchor != "" {
				assert.True(t, anchors(t, file)[anchor], "%s links to %s: %s has no heading #%s", page, target, file, anchor)
			}
			checked++
		}
	}
	assert.Greater(t, checked, 20, "the pages link to the packages and to each other")
}

func TestSlugIsGitHubs(t *testing.T) {
	assert.Equal(t, "five-minute-tutorial", slug("Five-minute tutorial"))
	assert.Equal(t, "differences-from-java", slug("Differences from Java"))
	assert.Equal(t, "how-the-generated-code-differs-from-javas-aspect", slug("How the generated code differs from Java's aspect"))
	assert.Equal(t, "rules-files-dry-runs-checks-the-runtime-api", slug("Rules: files, dry runs, checks, the runtime API"))
}
