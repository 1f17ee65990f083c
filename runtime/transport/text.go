package transport

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

var errEmptyID = errors.New("Invalid parameter: empty clusterNode name")

// The human-readable commands (tree, cnode, origin) print Java's tables:
// columns padded as Java's String.format("%-Ns") pads, numbers as Java
// prints doubles, names longer than maxNameLen wrapped onto further rows.
const (
	maxNameLen = 79
	maxRows    = 30 // Java's limit per table
)

func pad(s string, w int) string {
	if n := len([]rune(s)); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// table writes a header and rows whose second column is a name, wrapping
// long names as Java's FetchClusterNodeHumanCommandHandler does.
func table(b *strings.Builder, widths []int, header []string, rows [][]string) {
	nameLen := 0
	for _, r := range rows {
		nameLen = max(nameLen, len([]rune(r[1])))
	}
	nameLen = min(max(nameLen, len(header[1])), maxNameLen)
	widths = append([]int(nil), widths...)
	widths[1] = nameLen + 1
	line := func(cells []string) {
		for i, c := range cells {
			b.WriteString(pad(c, widths[i]))
		}
		b.WriteString("\n")
	}
	line(header)
	blank := make([]string, len(header))
	for _, r := range rows {
		name := []rune(r[1])
		first := append([]string(nil), r...)
		first[1] = string(name[:min(len(name), nameLen)])
		line(first)
		for start := nameLen; start < len(name); start += nameLen {
			blank[1] = string(name[start:min(len(name), start+nameLen)])
			line(blank)
		}
	}
}

// textTree is Java's FetchTreeCommandHandler: the invocation tree, one
// node a line, indented with '-' per level; id picks the contexts named
// so, or else those whose name contains it.
func textTree(p params) (string, error) {
	root := runtime.Tree()
	root.Name = RootName
	var b strings.Builder
	id, filtered := p["id"]
	if !filtered {
		writeTree(&b, root, 0, true)
	} else {
		exact := false
		for _, c := range root.Children {
			if c.Name == id {
				writeTree(&b, c, 0, true)
				exact = true
				break
			}
		}
		if !exact {
			for _, c := range root.Children {
				if strings.Contains(c.Name, id) {
					writeTree(&b, c, 0, true)
				}
			}
		}
	}
	b.WriteString("\r\n\r\n")
	b.WriteString("t:threadNum  pq:passQps  bq:blockQps  tq:totalQps  rt:averageRt  prq: passRequestQps 1mp:1m-pass " +
		"1mb:1m-block 1mt:1m-total\r\n")
	return b.String(), nil
}

func writeTree(b *strings.Builder, t runtime.TreeNode, level int, entrance bool) {
	b.WriteString(strings.Repeat("-", level))
	if entrance {
		b.WriteString("EntranceNode: ")
	}
	m := t.Metrics
	fmt.Fprintf(b, "%s(t:%d pq:%s bq:%s tq:%s rt:%s prq:%s 1mp:%d 1mb:%d 1mt:%d)\n",
		t.Name, m.Threads, javaDouble(m.PassQPS), javaDouble(m.BlockQPS), javaDouble(m.PassQPS+m.BlockQPS),
		javaDouble(m.AvgRT), javaDouble(m.SuccessQPS), m.MinutePass, m.MinuteBlock, m.MinutePass+m.MinuteBlock)
	if level >= maxTreeDepth {
		return
	}
	for _, c := range t.Children {
		// Below machine-root come the contexts' entrances, then resources.
		writeTree(b, c, level+1, t.Kind == "root")
	}
}

// cnode is Java's FetchClusterNodeHumanCommandHandler: the resources whose
// name contains id, at most 30.
func cnode(p params) (string, error) {
	id := p["id"]
	if id == "" {
		return "", errEmptyID
	}
	now := runtime.NowMillis()
	var rows [][]string
	for _, r := range runtime.Resources() {
		if len(rows) == maxRows {
			break
		}
		cn := r.ClusterNode()
		if cn == nil || !strings.Contains(r.Name(), id) {
			continue
		}
		m := cn.Metrics(now)
		rows = append(rows, []string{fmt.Sprint(len(rows) + 1), r.Name(), fmt.Sprint(m.Threads),
			javaDouble(m.PassQPS), javaDouble(m.BlockQPS), javaDouble(m.SuccessQPS), javaDouble(m.PassQPS + m.BlockQPS),
			javaDouble(m.AvgRT), fmt.Sprint(m.MinutePass), fmt.Sprint(m.MinuteBlock),
			fmt.Sprint(m.MinutePass + m.MinuteBlock), javaDouble(m.ExceptionQPS)})
	}
	var b strings.Builder
	table(&b, []int{4, 80, 10, 10, 10, 11, 9, 6, 10, 11, 9, 11},
		[]string{"idx", "id", "thread", "pass", "blocked", "success", "total", "aRt", "1m-pass", "1m-block", "1m-all", "exception"}, rows)
	return b.String(), nil
}

// origins is Java's FetchOriginCommandHandler: the callers of the resource
// named id (or else of the first whose name contains it), at most 30.
// Origins keep a second of statistics here, so the 1m columns are 0.
func origins(p params) (string, error) {
	id := p["id"]
	r := runtime.LookupResource(id)
	if r == nil && id != "" {
		for _, c := range runtime.Resources() {
			if strings.Contains(c.Name(), id) {
				r = c
				break
			}
		}
	}
	if r == nil || r.ClusterNode() == nil {
		return "Not find cNode with id " + id, nil
	}
	cn := r.ClusterNode()
	now := runtime.NowMillis()
	var rows [][]string
	for _, o := range cn.Origins() {
		if len(rows) == maxRows {
			break
		}
		n := cn.OriginNode(o)
		if n == nil {
			continue
		}
		rows = append(rows, originRow(len(rows)+1, o, n.Metrics(now)))
	}
	var b strings.Builder
	b.WriteString("id: " + r.Name() + "\n\n")
	table(&b, []int{4, 80, 10, 10, 11, 9, 6, 10, 11, 9},
		[]string{"idx", "origin", "threadNum", "passQps", "blockQps", "totalQps", "aRt", "1m-pass", "1m-block", "1m-total"}, rows)
	return b.String(), nil
}

func originRow(i int, name string, m stat.Metrics) []string {
	return []string{fmt.Sprint(i), name, fmt.Sprint(m.Threads), javaDouble(m.PassQPS), javaDouble(m.BlockQPS),
		javaDouble(m.PassQPS + m.BlockQPS), javaDouble(m.AvgRT), fmt.Sprint(m.MinutePass), fmt.Sprint(m.MinuteBlock),
		fmt.Sprint(m.MinutePass + m.MinuteBlock)}
}
