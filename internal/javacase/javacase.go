// Package javacase reads, for tests, rule sets that were run through Java
// Sentinel and what Java made of them: the files under the rule packages'
// testdata/*_java17.txt. Each set is
//
//	set <kind>
//	<r|p> field=value ...   one line per rule, in load order (values %-escaped UTF-8)
//	hash <hashCode> ...     each rule's Java hashCode
//	order <resource> <i>... per resource, the list Java checks, as load indexes
//	end
package javacase

import (
	"bufio"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Case is one rule set.
type Case[R any] struct {
	Line   int // where the set starts in the file
	Rules  []R
	Hashes []int32
	Order  map[string][]int
}

// Read reads the sets of path, making each rule with parse from its fields.
func Read[R any](t *testing.T, path string, parse func(fields map[string]string) (R, error)) []Case[R] {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var cases []Case[R]
	var c *Case[R]
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		head, rest, _ := strings.Cut(sc.Text(), " ")
		switch head {
		case "set":
			c = &Case[R]{Line: n, Order: map[string][]int{}}
		case "r", "p":
			fields := map[string]string{}
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				if k != "items" { // items are escaped part by part
					v, err = url.PathUnescape(v)
					require.NoError(t, err, "line %d", n)
				}
				fields[k] = v
			}
			r, err := parse(fields)
			require.NoError(t, err, "line %d", n)
			c.Rules = append(c.Rules, r)
		case "hash":
			for _, h := range strings.Fields(rest) {
				v, err := strconv.ParseInt(h, 10, 32)
				require.NoError(t, err, "line %d", n)
				c.Hashes = append(c.Hashes, int32(v))
			}
		case "order":
			fs := strings.Fields(rest)
			res, err := url.PathUnescape(fs[0])
			require.NoError(t, err, "line %d", n)
			c.Order[res] = []int{}
			for _, f := range fs[1:] {
				i, err := strconv.Atoi(f)
				require.NoError(t, err, "line %d", n)
				c.Order[res] = append(c.Order[res], i)
			}
		case "end":
			cases = append(cases, *c)
		}
	}
	require.NoError(t, sc.Err())
	return cases
}

// Int reads an integer field, def when it is absent.
func Int(fields map[string]string, k string, def int) (int, error) {
	v, ok := fields[k]
	if !ok {
		return def, nil
	}
	return strconv.Atoi(v)
}
