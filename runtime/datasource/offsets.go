package datasource

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// ruleOffsets returns the byte offset where each rule starts, per section
// of a combined document ("" holds a single kind's array), so that rule
// problems can carry a line and column. Comments and text after the
// document are read as readJava reads them. It returns nil for a document
// it cannot parse (one refused before rules were reached).
func ruleOffsets(data []byte) map[string][]int {
	data = bytes.TrimPrefix(data, utf8BOM)
	if tooDeep(data) >= 0 {
		return nil
	}
	buf := append(bytes.Clone(data), '\n') // as readJava reads it
	root, err := hujson.Parse(buf)
	if err != nil {
		off, msg := hujsonError(data, err)
		if !bytes.HasSuffix([]byte(msg), []byte("after top-level value")) {
			return nil
		}
		if root, err = hujson.Parse(buf[:off]); err != nil {
			return nil
		}
	}
	out := map[string][]int{}
	switch v := root.Value.(type) {
	case *hujson.Array:
		out[""] = elementOffsets(v)
	case *hujson.Object:
		for _, m := range v.Members {
			if arr, ok := m.Value.Value.(*hujson.Array); ok {
				out[m.Name.Value.(hujson.Literal).String()] = elementOffsets(arr)
			}
		}
	}
	return out
}

func elementOffsets(arr *hujson.Array) []int {
	offs := make([]int, len(arr.Elements))
	for i, el := range arr.Elements {
		offs[i] = el.StartOffset
	}
	return offs
}

// locate gives rule problems the line and column where their rule starts.
func locate(data []byte, problems []Problem) {
	var offs map[string][]int
	var lines lineIndex
	text := bytes.TrimPrefix(data, utf8BOM)
	for i := range problems {
		p := &problems[i]
		if p.Rule < 0 || p.Line > 0 {
			continue
		}
		if offs == nil {
			if offs = ruleOffsets(data); offs == nil {
				return
			}
		}
		if list := offs[p.Section]; p.Rule < len(list) {
			p.Line, p.Column = lines.position(text, list[p.Rule])
		}
	}
}
