package datasource

import "time"

// Event is one outcome of a data source reading its rules: loaded, or
// refused (then the rules in force stayed in force).
type Event struct {
	Path   string    // the source, as given (the file path)
	Kind   string    // the Kind's name
	Loaded bool      // the rules were put in force
	Err    error     // why they were refused; nil when Loaded
	Rules  int       // how many rules were loaded (0 when refused)
	Time   time.Time // when (wall clock)
	// Warnings of the version loaded: what Java accepts and its author
	// should probably fix, and under SkipInvalid the rules left out.
	Warnings []Warning
}

// Status is a data source's state, for health checks and metrics.
type Status struct {
	Path       string
	Kind       string
	Watching   string    // how changes are seen: "fsnotify+poll", "poll", or "closed"
	LastLoad   time.Time // the last successful load; zero if none
	LastError  error     // nil after a good load; the last refusal otherwise
	Rules      int       // rules put in force by the last successful load
	Warnings   []Warning // the warnings of the last successful load
	Loads      int       // successful loads so far
	Refusals   int       // refused versions so far
	Reads      int       // times the file was read (a read of unchanged content loads nothing)
	LastChange time.Time // the last time a new version (good or bad) was seen
}
