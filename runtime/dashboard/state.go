package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
)

// rules returns the rules in force by kind name, in the shape of a combined
// rule file: {"flow": [...], "degrade": [...], ...}.
func (h *Handler) rules() map[string]any {
	out := make(map[string]any, len(h.kinds))
	for _, k := range h.kinds {
		out[k.Name()] = k.Rules()
	}
	return out
}

// Breaker is a circuit breaker as the JSON shows it.
type Breaker struct {
	Resource string       `json:"resource"`
	Rule     degrade.Rule `json:"rule"`
	// State is Java's name: CLOSED, OPEN or HALF_OPEN.
	State string `json:"state"`
	// NextRetryMillis is, for an OPEN breaker, the Unix ms from which it
	// lets a probe through.
	NextRetryMillis int64 `json:"nextRetryMillis"`
	// DryRun marks the breaker of a dry-run rule: State is the state it
	// would be in; it admits every call.
	DryRun bool `json:"dryRun"`
}

func breakers() []Breaker {
	out := []Breaker{}
	for _, b := range degrade.Breakers() {
		out = append(out, Breaker{Resource: safetext.Label(b.Resource), Rule: b.Rule, State: b.State.String(), NextRetryMillis: b.NextRetryMillis,
			DryRun: b.Rule.DryRun})
	}
	return out
}

// limiters are the adaptive concurrency limits and their state: the limit
// now, the calls in flight, the unloaded response time measured, whether
// they probe.
func limiters() []adaptive.State {
	out := adaptive.States()
	if out == nil {
		return []adaptive.State{}
	}
	for i := range out {
		out[i].Resource = safetext.Label(out[i].Resource)
		out[i].Rule.Resource = out[i].Resource
	}
	return out
}

// SourceState is a data source's status as the JSON shows it.
type SourceState struct {
	Path       string     `json:"path"`
	Kind       string     `json:"kind"`
	Watching   string     `json:"watching"`
	Rules      int        `json:"rules"`
	Loads      int        `json:"loads"`
	Refusals   int        `json:"refusals"`
	LastLoad   *time.Time `json:"lastLoad,omitempty"`
	LastChange *time.Time `json:"lastChange,omitempty"`
	// LastError is the last refusal, "" after a good load.
	LastError string `json:"lastError,omitempty"`
	// Warnings are the last version loaded's warnings (a misspelt
	// field, a quoted number, ...), one line each, as the log writes
	// them: at most datasource.MaxWarnings and a count of the rest.
	Warnings []string `json:"warnings,omitempty"`
}

func (h *Handler) sourceStates() []SourceState {
	out := make([]SourceState, 0, len(h.sources))
	for _, src := range h.sources {
		s := src.Status()
		st := SourceState{Path: safetext.Log(s.Path, 0), Kind: s.Kind, Watching: s.Watching, Rules: s.Rules, Loads: s.Loads, Refusals: s.Refusals}
		if !s.LastLoad.IsZero() {
			st.LastLoad = &s.LastLoad
		}
		if !s.LastChange.IsZero() {
			st.LastChange = &s.LastChange
		}
		if s.LastError != nil {
			st.LastError = boundError(s.LastError.Error())
		}
		for i, w := range s.Warnings {
			if i > datasource.MaxWarnings { // a source of its own may keep more
				break
			}
			st.Warnings = append(st.Warnings, boundError(w.String()))
		}
		out = append(out, st)
	}
	return out
}

// MaxErrorBytes bounds a source's LastError as the JSON shows it: the page
// polls it every second. datasource errors are far smaller already (100
// rules of at most 512 bytes); this bounds any other source's.
const MaxErrorBytes = 64 << 10

// boundError makes msg valid UTF-8 of at most MaxErrorBytes, keeping its
// lines.
func boundError(msg string) string {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	if len(msg) <= MaxErrorBytes {
		return msg
	}
	cut := MaxErrorBytes - 64
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + fmt.Sprintf("\n... (%d bytes in all)", len(msg))
}

// Snapshot is everything the page shows, in one response.
type Snapshot struct {
	Now       int64            `json:"now"`     // Unix ms of the runtime's clock
	Enabled   bool             `json:"enabled"` // the global switch (runtime.SetEnabled)
	Resources []Resource       `json:"resources"`
	Inbound   Resource         `json:"inbound"`
	Rules     map[string]any   `json:"rules"`
	Breakers  []Breaker        `json:"breakers"`
	Limiters  []adaptive.State `json:"limiters"` // adaptive concurrency limits
	Sources   []SourceState    `json:"sources"`
	Outages   []Outage         `json:"outages"`            // servers not answering now
	Editable  []string         `json:"editable,omitempty"` // kinds PUT api/rules/{kind} accepts
}

func (h *Handler) serveSnapshot(w http.ResponseWriter, r *http.Request) {
	now := runtime.NowMillis()
	in := runtime.InboundNode()
	s := Snapshot{
		Now:       now,
		Enabled:   runtime.Enabled(),
		Resources: busiest(now, h.limit),
		Inbound:   Resource{Name: "inbound", Traffic: "in", Metrics: metricsOf(in, now), History: history(in.History(now), now)},
		Rules:     h.rules(),
		Breakers:  breakers(),
		Limiters:  limiters(),
		Sources:   h.sourceStates(),
		Outages:   outages(),
	}
	if len(h.updates) > 0 {
		s.Editable = h.editable()
	}
	writeJSON(w, s)
}
