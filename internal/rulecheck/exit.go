package rulecheck

import (
	"errors"
	"fmt"
	"io"
)

// UsageError is a command line that does not parse: exit status 2. Msg,
// when set, is printed; the flag package has printed its own.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Reported says problems were printed already: exit status 1, nothing
// more to print.
type Reported struct{}

func (Reported) Error() string { return "problems reported" }

// ExitCode maps a command's error to its exit status, printing, after
// prog, what was not printed yet.
func ExitCode(prog string, err error, stderr io.Writer) int {
	var usage UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		if usage.Msg != "" {
			fmt.Fprintln(stderr, prog+":", usage.Msg)
		}
		return 2
	case errors.Is(err, Reported{}):
		return 1
	}
	fmt.Fprintln(stderr, prog+":", err)
	return 1
}
