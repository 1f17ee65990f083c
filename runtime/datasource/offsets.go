package datasource

import (
	"bytes"
	"encoding/json"
)

// ruleOffsets returns the byte offset where each rule starts, per section
// of a combined document ("" holds a single kind's array), so that rule
// problems can carry a line and column. It returns nil for a document it
// cannot walk (one that was refused before rules were reached).
func ruleOffsets(data []byte) map[string][]int {
	data = bytes.TrimPrefix(data, utf8BOM)
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	out := map[string][]int{}
	switch tok {
	case json.Delim('['):
		out[""] = arrayOffsets(dec, data)
	case json.Delim('{'):
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return out
			}
			name, _ := key.(string)
			next := skipSpace(data, int(dec.InputOffset()))
			if next >= len(data) || data[next] != '[' {
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return out
				}
				continue
			}
			if _, err := dec.Token(); err != nil { // '['
				return out
			}
			out[name] = arrayOffsets(dec, data)
			if _, err := dec.Token(); err != nil { // ']'
				return out
			}
		}
	}
	return out
}

// arrayOffsets walks the elements of the array dec has just entered.
func arrayOffsets(dec *json.Decoder, data []byte) []int {
	var offs []int
	for dec.More() {
		offs = append(offs, skipSpace(data, int(dec.InputOffset())))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return offs
}

// skipSpace moves past the blanks and the comma before a value.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
		default:
			return i
		}
	}
	return i
}

// locate gives rule problems the line and column where their rule starts.
func locate(data []byte, problems []Problem) {
	var offs map[string][]int
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
			p.Line, p.Column = position(bytes.TrimPrefix(data, utf8BOM), list[p.Rule])
		}
	}
}
