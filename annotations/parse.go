package annotations

import (
	"go/token"
	"strconv"
	"strings"
	"unicode/utf8"
)

// IsDirective reports whether a comment's text (with its //) is a
// //sentinel:resource or //sentinel:decorate directive.
func IsDirective(text string) bool { return directivePrefix(text) != "" }

// directivePrefix is the directive text starts with, or "".
func directivePrefix(text string) string {
	for _, prefix := range []string{Prefix, DecoratePrefix} {
		rest, ok := strings.CutPrefix(text, prefix)
		if ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return prefix
		}
	}
	return ""
}

// ParseLine parses one directive line, text being the comment with its
// leading //, found at pos. It returns the directive and every problem in
// it; the directive is nil only when the line is not a directive.
func ParseLine(pos token.Position, text string) (*Directive, ErrorList) {
	prefix := directivePrefix(text)
	if prefix == "" {
		return nil, nil
	}
	p := &lineParser{base: pos, text: text, seen: map[string]token.Position{}}
	p.d = &Directive{Pos: pos, Type: ResourceTypes[0], Batch: 1, Decorate: prefix == DecoratePrefix, Given: p.seen}
	p.parse(len(prefix))
	p.d.Bad = len(p.errs) > 0
	return p.d, p.errs
}

type lineParser struct {
	base token.Position
	text string
	d    *Directive
	seen map[string]token.Position
	errs ErrorList
}

// at is the position of byte off of the line. Directive lines are single
// line comments, so the column moves with the offset.
func (p *lineParser) at(off int) token.Position {
	q := p.base
	q.Offset += off
	q.Column += off
	return q
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func (p *lineParser) parse(i int) {
	s := p.text
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return
		}
		start := i
		for i < len(s) && s[i] != '=' && !isSpace(s[i]) {
			i++
		}
		key := s[start:i]
		if end, ok := p.spacedPair(start, i); ok {
			i = end
			continue
		}
		if i >= len(s) || s[i] != '=' {
			p.errs.Add(p.at(start), "expected key=value, found %s", strconv.Quote(key))
			continue
		}
		if key == "" {
			p.errs.Add(p.at(start), "missing key before =")
		} else if !isWord(key) {
			p.errs.Add(p.at(start), "bad key %s", strconv.Quote(key))
			key = ""
		}
		i++ // '='
		vstart := i
		var val string
		quoted := i < len(s) && s[i] == '"'
		if quoted {
			end, ok := scanQuoted(s, i)
			if !ok {
				p.errs.Add(p.at(vstart), "unterminated quoted value")
				return
			}
			u, err := strconv.Unquote(s[i:end])
			if err != nil {
				p.errs.Add(p.at(vstart), "bad quoted value %s", s[i:end])
				i = end
				continue
			}
			val, i = u, end
			if i < len(s) && !isSpace(s[i]) {
				p.errs.Add(p.at(i), "expected a space after the quoted value")
				for i < len(s) && !isSpace(s[i]) {
					i++
				}
				continue
			}
		} else {
			for i < len(s) && !isSpace(s[i]) {
				i++
			}
			val = s[vstart:i]
			if strings.ContainsRune(val, '"') {
				p.errs.Add(p.at(vstart), "%s=%s: quote the whole value", key, val)
				continue
			}
		}
		if key == "" {
			continue
		}
		// Items of a quoted list sit one byte further, after the quote. When
		// unquoting changed the text (escapes), item columns cannot be
		// mapped back byte for byte: items then point at the value.
		itemBase := vstart
		if quoted {
			itemBase++
			if s[vstart+1:i-1] != val {
				itemBase = -1
			}
		}
		p.set(Value{Text: key, Pos: p.at(start)}, Value{Text: val, Pos: p.at(vstart)}, itemBase)
	}
}

// spacedPair reports, once, a pair written with spaces around its =
// (key = value, key =value, key= value), and returns where the pair ends.
// The key is s[start:i]. key= followed by another key=value pair is an
// empty value, not a spaced pair.
func (p *lineParser) spacedPair(start, i int) (end int, ok bool) {
	s := p.text
	skip := func(j int) int {
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		return j
	}
	token := func(j int) int {
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		return j
	}
	key := s[start:i]
	if key == "" || !isWord(key) {
		return 0, false
	}
	var vstart int
	switch j := skip(i); {
	case j > i && j < len(s) && s[j] == '=': // key = value, key =value
		vstart = skip(j + 1)
	case i < len(s) && s[i] == '=' && i+1 < len(s) && isSpace(s[i+1]): // key= value
		vstart = skip(i + 1)
		if vstart < len(s) && strings.ContainsRune(s[vstart:token(vstart)], '=') {
			return 0, false // key= then another pair
		}
	default:
		return 0, false
	}
	if vstart >= len(s) {
		return 0, false
	}
	end = token(vstart)
	if s[vstart] == '"' {
		if q, ok := scanQuoted(s, vstart); ok {
			end = q
		}
	}
	val := s[vstart:end]
	p.errs.Add(p.at(start), "%s: no spaces around =; write %s=%s", strings.Join(strings.Fields(s[start:end]), " "), key, val)
	return end, true
}

// scanQuoted returns the end (exclusive) of the Go string literal starting
// at s[i] == '"'.
func scanQuoted(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// set validates one key=value pair and stores it in the directive.
func (p *lineParser) set(key, val Value, itemBase int) {
	if _, ok := p.seen[key.Text]; ok {
		p.errs.Add(key.Pos, "duplicate key %s", key.Text)
		return
	}
	k := findKey(key.Text)
	if k == nil {
		if s := suggestKey(key.Text); s != "" {
			p.errs.Add(key.Pos, "unknown key %s; did you mean %s?", key.Text, s)
		} else {
			p.errs.Add(key.Pos, "unknown key %s; want one of %s", key.Text, strings.Join(keyNames(), ", "))
		}
		return
	}
	p.seen[key.Text] = key.Pos
	if why := k.refusedOn(p.d.Decorate); why != "" {
		p.errs.Add(key.Pos, "%s", why)
		return
	}
	if !utf8.ValidString(val.Text) {
		// Names end up in metrics labels, logs and JSON, which need
		// UTF-8; "\xff" is a valid Go string literal, so say so here.
		p.errs.Add(val.Pos, "%s=%s: not valid UTF-8", key.Text, showValue(val.Text))
		return
	}
	if val.Text == "" && k.name != "args" {
		p.errs.Add(val.Pos, "%s=%s: empty value", key.Text, showValue(val.Text))
		return
	}
	k.set(p, key, val, itemBase)
}

// items splits a comma list, trimming spaces around items. base is the
// line offset of the list's first byte, or -1 when items cannot be placed
// exactly and take the value's position.
func (p *lineParser) items(key string, list Value, base int) []Value {
	var out []Value
	off := 0
	for part := range strings.SplitSeq(list.Text, ",") {
		lead := len(part) - len(strings.TrimLeft(part, " \t"))
		text := strings.TrimSpace(part)
		pos := list.Pos
		if base >= 0 {
			pos = p.at(base + off + lead)
		}
		off += len(part) + 1
		if text == "" {
			p.errs.Add(pos, "%s: empty item in list", key)
			continue
		}
		out = append(out, Value{Text: text, Pos: pos})
	}
	return out
}

// isWord reports whether s is made of identifier characters; keys may be
// Go keywords (type=).
func isWord(s string) bool { return isIdent(s) || token.IsKeyword(s) }

// isIdent reports whether s is a Go identifier, exactly as the language
// defines one (Unicode letters and digits included, keywords not).
func isIdent(s string) bool { return token.IsIdentifier(s) }

// isHandlerRef accepts name and pkg.Name.
func isHandlerRef(s string) bool {
	pkg, name, ok := strings.Cut(s, ".")
	if !ok {
		return isIdent(s) && s != "_"
	}
	return isIdent(pkg) && isIdent(name) && pkg != "_" && name != "_"
}

// isErrorRef accepts Name, pkg.Name, *Name and *pkg.Name.
func isErrorRef(s string) bool {
	return isHandlerRef(strings.TrimPrefix(s, "*"))
}

// showValue prints a value as the user would write it: bare when it can be,
// quoted otherwise.
func showValue(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"\\") || !strconv.CanBackquote(s) {
		return strconv.Quote(s)
	}
	return s
}
