package datasource

import (
	"fmt"
	"sort"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Warning is something a document does that loads, as Java loads it, but
// that its author should probably fix: a quoted number, a comment, text
// after the document, a rule Java accepts but that does not do what it
// seems to. Each says what was found and what Java (and so this runtime)
// does with it. Warnings never refuse a document.
type Warning struct {
	Name string // the document's name (usually the file path)
	// Line and Column (1-based, in bytes) locate the value at fault, or
	// the rule's start; 0 when unknown.
	Line, Column int
	Section      string // the kind's key in a combined document; "" otherwise
	Rule         int    // the rule's index in its array; -1 when not about one rule
	Resource     string
	Field        string // the JSON path inside the rule ("clusterConfig.flowId"); "" for the rule or document
	Message      string // what was found and what is done with it, after the field
}

// String prints w as the CLI and the log print it:
//
//	flow.json:3:14: rule 0 (resource "getOrder"): warning: count "5" is a quoted number; read as 5, as fastjson and Jackson read it
func (w Warning) String() string {
	return Problem{File: w.Name, Line: w.Line, Column: w.Column, Section: w.Section, Rule: w.Rule,
		Resource: w.Resource, Field: w.Field, Severity: SeverityWarning, Message: w.Message}.String()
}

// problem is w as a CheckFiles finding.
func (w Warning) problem() Problem {
	return Problem{File: w.Name, Line: w.Line, Column: w.Column, Section: w.Section, Rule: w.Rule,
		Resource: w.Resource, Field: w.Field, Severity: SeverityWarning, Message: w.Message}
}

// ruleWarning turns a rule package's finding (same shape as a refusal:
// index, resource, field, reason) into a Warning of document name.
func ruleWarning(name string, e *runtime.RuleError) Warning {
	return Warning{Name: name, Rule: e.Index, Resource: e.Resource, Field: e.Field, Message: e.Reason}
}

// skippedWarning is the warning for a rule left out under SkipInvalid.
func skippedWarning(name string, e *runtime.RuleError) Warning {
	w := ruleWarning(name, e)
	if w.Field != "" {
		w.Message = fmt.Sprintf("%s %s", w.Field, w.Message)
		w.Field = ""
	}
	w.Message = "skipped, as Java skips a rule its validator refuses: " + w.Message
	return w
}

// lineIndex finds the line and column of an offset in O(log lines), built
// on first use: a document may warn about every one of its values.
type lineIndex []int

func (li *lineIndex) position(data []byte, off int) (line, col int) {
	if *li == nil {
		starts := []int{0}
		for i, c := range data {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		*li = starts
	}
	off = max(0, min(off, len(data)))
	l := sort.SearchInts(*li, off+1) - 1
	return l + 1, off - (*li)[l] + 1
}

// sortWarnings puts warnings in document order (stable for equal places).
func sortWarnings(ws []Warning) {
	sort.SliceStable(ws, func(i, j int) bool {
		if ws[i].Line != ws[j].Line {
			return ws[i].Line < ws[j].Line
		}
		return ws[i].Column < ws[j].Column
	})
}

// MaxWarnings is how many warnings a load keeps; the rest are counted in
// one last warning, so a file with a quoted number in each of its 100,000
// rules costs a bounded report.
const MaxWarnings = 100

// capWarnings keeps the first MaxWarnings and says how many more there
// were, counting more that were never kept.
func capWarnings(name string, ws []Warning, more int) []Warning {
	if len(ws) > MaxWarnings {
		more += len(ws) - MaxWarnings
		ws = ws[:MaxWarnings:MaxWarnings]
	}
	if more == 0 {
		return ws
	}
	return append(ws, Warning{Name: name, Rule: -1, Message: fmt.Sprintf("and %d more warnings", more)})
}
