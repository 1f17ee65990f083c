package datasource

// Policy says what a data source does with a document that holds rules
// Java's validators refuse.
type Policy int

const (
	// RefuseDocument refuses the whole document, and the rules in force
	// stay: the default. A typo in one rule never takes the other rules'
	// protection away, nor silently drops the rule.
	RefuseDocument Policy = iota
	// SkipInvalid is Java's policy (FlowRuleUtil.buildFlowRuleMap and
	// every other rule manager): each invalid rule is left out, with a
	// warning that says why, and the rest load. For migrations, where a
	// file that loads in Java must load here too. A document that is not
	// a rule document at all, or whose values cannot be read, is still
	// refused: Java's parsers refuse it too.
	SkipInvalid
)

func (p Policy) String() string {
	if p == SkipInvalid {
		return "skip invalid rules"
	}
	return "refuse the document"
}

// Option configures how a data source loads documents (Load, LoadReport,
// and every source's WithLoadOptions, such as file.WithLoadOptions).
type Option func(*options)

type options struct {
	policy Policy
}

// WithPolicy sets what happens to a document with invalid rules (default
// RefuseDocument).
func WithPolicy(p Policy) Option {
	return func(o *options) { o.policy = p }
}
