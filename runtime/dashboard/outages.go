package dashboard

import (
	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Outage is a server protection relies on that does not answer now (the
// cluster client's Redis, an etcd or Redis rule source), as the JSON
// shows it; the page shows a line for each above everything else.
type Outage struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// SinceMillis is when the outage began (Unix ms, wall clock).
	SinceMillis int64  `json:"sinceMillis"`
	Cause       string `json:"cause,omitempty"`
	// Impact says what protection does meanwhile ("cluster rules are
	// checked locally").
	Impact string `json:"impact"`
}

func outages() []Outage {
	out := []Outage{}
	for _, d := range runtime.Dependencies() {
		if d.Down {
			out = append(out, Outage{Kind: d.Kind, Name: safetext.Log(d.Name, 256), SinceMillis: d.Since.UnixMilli(),
				Cause: boundError(d.Cause), Impact: d.Impact})
		}
	}
	return out
}
