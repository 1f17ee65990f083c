package authority

import (
	"fmt"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// Strategy says what a rule's origins are (Java's AuthorityRule.strategy).
type Strategy int

const (
	White Strategy = 0 // AUTHORITY_WHITE: only the listed origins may call
	Black Strategy = 1 // AUTHORITY_BLACK: the listed origins may not call
)

var strategyEnum = ruleutil.Enum{Type: "Strategy", Names: map[int][]string{
	0: {"White", "WhiteList", "AUTHORITY_WHITE", "Allow"},
	1: {"Black", "BlackList", "AUTHORITY_BLACK", "Deny"},
}, Open: true}

func (s Strategy) String() string { return strategyEnum.String(int(s)) }

// MarshalJSON writes Java's numeric code.
func (s Strategy) MarshalJSON() ([]byte, error) { return strategyEnum.Marshal(int(s)) }

// UnmarshalJSON accepts Java's numeric code or a name ("white", "black",
// "AUTHORITY_BLACK", ...).
func (s *Strategy) UnmarshalJSON(data []byte) error { return strategyEnum.Unmarshal(data, (*int)(s)) }

// Rule is an authority rule: Java's AuthorityRule, with its JSON field
// names. Every field's Java default is its Go zero value.
type Rule struct {
	// Resource is the protected resource's name, or a pattern when Regex is
	// set. Required; at most one rule per resource string, regex or not:
	// Java keeps the first and ignores the rest.
	Resource string `json:"resource"`
	// LimitApp is the comma-separated list of origins the rule names.
	// Required. Entries are trimmed ("appB, appE" names appB and appE) and
	// empty entries ignored.
	LimitApp string `json:"limitApp"`
	// Strategy says whether the origins are a white list (the zero value,
	// Java's default) or a black list.
	Strategy Strategy `json:"strategy"`
	// Regex makes Resource a regular expression that must match a whole
	// resource name (Java's Pattern.matches, in Go's RE2 syntax).
	Regex bool `json:"regex"`
	// DryRun checks every call but admits it: the calls the rule would
	// have refused are counted apart (runtime.Resource.DryRunBlockCount,
	// the block log's dry-run lines). Java Sentinel ignores the field and
	// would enforce the rule.
	DryRun bool `json:"dryRun,omitempty"`
}

// ResourceName is the rule's resource (a pattern for regex rules).
func (r *Rule) ResourceName() string { return r.Resource }

// String describes the rule for logs.
func (r *Rule) String() string {
	kind := "white"
	if r.Strategy == Black {
		kind = "black"
	} else if r.Strategy != White {
		kind = r.Strategy.String()
	}
	regex := ""
	if r.Regex {
		regex = " (regex)"
	}
	dry := ""
	if r.DryRun {
		dry = ", dry run"
	}
	return fmt.Sprintf("authority rule {resource %q%s, %s list %q%s}", r.Resource, regex, kind, r.LimitApp, dry)
}
