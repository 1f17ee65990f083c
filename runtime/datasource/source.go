package datasource

// Source is a watched rule source: what package file's, etcd's and redis's
// sources all offer, and what the metrics collector and the dashboards
// take to report them.
type Source interface {
	// Status reports the source's state: loads, refusals, the last error
	// and warnings, how it watches.
	Status() Status
	// LastError is nil after a good load, and the reason of the last
	// refusal otherwise.
	LastError() error
	// LastWarnings is the warnings of the last version loaded.
	LastWarnings() []Warning
	// Subscribe calls fn with every later Event; cancel stops it.
	Subscribe(fn func(Event)) (cancel func())
	// Close stops watching; the rules in force stay.
	Close() error
}
