package datasource

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Error is a refused rule document: which one, where, and why. It prints as
//
//	flow.json: rule 2 (resource "getOrder"): count -1 is negative; it must be >= 0 (0 blocks every call)
//	flow.json:3:14: invalid character 'N' looking for beginning of value (NaN and Infinity are not JSON)
//	rules.json: degrade: rule 0 (resource "getOrder"): timeWindow ...
//
// one line per invalid rule. errors.As finds each *runtime.RuleError.
type Error struct {
	Name    string // the document's name, as given (usually the file path)
	Kind    string // the rule kind being decoded ("flow"); "" for the document as a whole
	Section string // the key in a combined document ("degrade"); "" otherwise
	// Line and Column (1-based, in bytes) locate a syntax or encoding
	// error; both are 0 when the error has no position.
	Line, Column int
	Rules        runtime.RuleErrors // the invalid rules, in index order
	Err          error              // the cause, when it is not about single rules
}

func (e *Error) Error() string {
	prefix := e.Name
	if e.Line > 0 {
		prefix += ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column)
	}
	prefix += ": "
	if e.Section != "" {
		prefix += e.Section + ": "
	}
	if len(e.Rules) == 0 {
		msg := "refused"
		if e.Err != nil {
			msg = e.Err.Error()
		}
		return prefix + msg
	}
	lines := make([]string, len(e.Rules))
	for i, r := range e.Rules {
		lines[i] = prefix + r.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the cause, or each invalid rule's *runtime.RuleError.
func (e *Error) Unwrap() []error {
	if len(e.Rules) == 0 {
		if e.Err == nil {
			return nil
		}
		return []error{e.Err}
	}
	return e.Rules.Unwrap()
}

// Sentinel causes, for errors.Is.
var (
	// ErrEmpty: the document is empty or only whitespace. It never clears
	// the rules in force; write [] to mean "no rules".
	ErrEmpty = errors.New("document is empty (write [] to clear the rules)")
	// ErrTooLarge: the file is over the size cap; it is refused, not truncated.
	ErrTooLarge = errors.New("file too large")
	// ErrNotRegular: the path is a FIFO, a device or a socket, which is
	// never read (reading one may block for ever).
	ErrNotRegular = errors.New("not a regular file")
	// ErrInvalidUTF8: the document is not UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrSyntax: the document is not JSON.
	ErrSyntax = errors.New("JSON syntax error")
)

// position returns the 1-based line and column of byte offset off in data.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	return line, off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
}
