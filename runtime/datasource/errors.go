package datasource

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Error is a refused rule document: which one, where, and why. It prints as
//
//	flow.json: rule 2 (resource "getOrder"): count -1 is negative; it must be >= 0 (0 blocks every call)
//	flow.json:3:14: invalid character 'N' looking for beginning of value (NaN and Infinity are not JSON)
//	rules.json: degrade: rule 0 (resource "getOrder"): timeWindow ...
//
// one line per invalid rule. errors.As finds each *runtime.RuleError.
//
// An error stays small whatever the document: it keeps the first
// MaxRuleErrors invalid rules and counts the rest (Omitted), and each line
// is at most MaxErrorLine bytes of valid UTF-8 with control characters
// escaped, so that a 4 MiB document of junk makes an error of tens of
// kilobytes, not of a hundred megabytes kept as LastError and served.
type Error struct {
	Name    string // the document's name, as given (usually the file path)
	Kind    string // the rule kind being decoded ("flow"); "" for the document as a whole
	Section string // the key in a combined document ("degrade"); "" otherwise
	// Line and Column (1-based, in bytes) locate a syntax or encoding
	// error; both are 0 when the error has no position.
	Line, Column int
	Rules        runtime.RuleErrors // the invalid rules, in index order: the first MaxRuleErrors
	Omitted      int                // invalid rules after those in Rules, counted only
	Err          error              // the cause, when it is not about single rules
}

// MaxRuleErrors is how many invalid rules an Error keeps; MaxErrorLine is
// the most bytes of each line of its message.
const (
	MaxRuleErrors = 100
	MaxErrorLine  = 512
)

// capRules keeps the first MaxRuleErrors of errs and counts the rest.
func capRules(errs runtime.RuleErrors) (runtime.RuleErrors, int) {
	if len(errs) <= MaxRuleErrors {
		return errs, 0
	}
	return slices.Clip(errs[:MaxRuleErrors]), len(errs) - MaxRuleErrors
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
	prefix = safetext.Log(prefix, MaxErrorLine/2)
	if len(e.Rules) == 0 {
		msg := "refused"
		if e.Err != nil {
			msg = e.Err.Error()
		}
		return prefix + capLines(msg)
	}
	lines := make([]string, len(e.Rules), len(e.Rules)+1)
	for i, r := range e.Rules {
		lines[i] = prefix + safetext.Log(r.Error(), MaxErrorLine)
	}
	if e.Omitted > 0 {
		lines = append(lines, prefix+"... and "+strconv.Itoa(e.Omitted)+" more invalid rules")
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

// capLines bounds a cause's message: at most MaxRuleErrors lines of at most
// MaxErrorLine bytes each.
func capLines(msg string) string {
	if len(msg) <= MaxErrorLine && safetext.Clean(msg) {
		return msg
	}
	lines := strings.SplitN(msg, "\n", MaxRuleErrors+1)
	more := ""
	if len(lines) > MaxRuleErrors {
		lines = lines[:MaxRuleErrors]
		more = "\n... and more"
	}
	for i, l := range lines {
		lines[i] = safetext.Log(l, MaxErrorLine)
	}
	return strings.Join(lines, "\n") + more
}

// Sentinel causes, for errors.Is.
var (
	// ErrEmpty: the document is empty or only whitespace. It never clears
	// the rules in force; write [] to mean "no rules".
	ErrEmpty = errors.New("document is empty (write [] to clear the rules)")
	// ErrTooLarge: the document (a file, a key's value, a message) is over
	// the size cap; it is refused, not truncated.
	ErrTooLarge = errors.New("too large")
	// ErrNotRegular: the path is a FIFO, a device or a socket, which is
	// never read (reading one may block for ever).
	ErrNotRegular = errors.New("not a regular file")
	// ErrInvalidUTF8: the document is not UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrSyntax: the document is not JSON.
	ErrSyntax = errors.New("JSON syntax error")
	// ErrAllInvalid: under SkipInvalid, every rule of a non-empty document
	// was invalid. It never clears the rules in force; write [] for that.
	ErrAllInvalid = errors.New("every rule is invalid (write [] to clear the rules)")
)

// position returns the 1-based line and column of byte offset off in data.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	return line, off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
}
