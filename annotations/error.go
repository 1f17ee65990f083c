package annotations

import (
	"fmt"
	"go/token"
	"sort"
	"strings"
)

// Error is a problem at a position in the source: a bad directive, or (in
// package generator) a handler whose signature does not fit. It prints as
// file:line:col: message, the form editors and CI logs link to.
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() && e.Pos.Filename == "" {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList collects every problem of a run, so that a user fixes them all
// at once instead of one per run. It is the one positioned error list of
// sentinelgen: the parser, the generator and the command all use it. It
// is not go/scanner.ErrorList because that one keeps only the first
// problem of each line (RemoveMultiples) and prints one problem "and N
// more"; a directive line often has several problems, and all are shown.
type ErrorList []*Error

// Add appends a problem at pos.
func (l *ErrorList) Add(pos token.Position, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the list by file, line, column, then message, and drops exact
// duplicates (the same problem found twice, for example through two
// packages sharing a file).
func (l *ErrorList) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i].Pos, s[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return s[i].Msg < s[j].Msg
	})
	out := s[:0]
	for i, e := range s {
		if i > 0 && e.Pos == s[i-1].Pos && e.Msg == s[i-1].Msg {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Err returns the list, sorted, as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Error prints one problem per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
