package adaptive

import "slices"

// State is a limiter's state, as the dashboards and metrics show it.
type State struct {
	Resource string `json:"resource"`
	// Limit is the calls in flight the limiter admits now; while it
	// probes, MinLimit, the probe's calls in flight (calls admitted before
	// the probe run on within the limit they had).
	Limit int64 `json:"limit"`
	// InFlight is the calls in flight now.
	InFlight int64 `json:"inFlight"`
	// MinRTTMs is the unloaded response time measured by the last probe,
	// in ms; 0 until the first probe has measured one.
	MinRTTMs float64 `json:"minRttMs"`
	// Probing is set while the calls that start are held to MinLimit in
	// flight to measure the unloaded response time.
	Probing bool `json:"probing"`
	// Rule is the rule in force, with its defaults filled in.
	Rule Rule `json:"rule"`
}

// States returns the state of every limiter in force, by resource name.
func States() []State {
	s := current.Load()
	if s == nil {
		return nil
	}
	out := make([]State, 0, len(s.limiters))
	for name, l := range s.limiters {
		out = append(out, State{
			Resource: name,
			Limit:    l.shownLimit(),
			InFlight: l.inFlight.Load(),
			MinRTTMs: l.MinRTT(),
			Probing:  l.probing.Load(),
			Rule:     *l.rule.Load(),
		})
	}
	slices.SortFunc(out, func(a, b State) int {
		if a.Resource < b.Resource {
			return -1
		}
		if a.Resource > b.Resource {
			return 1
		}
		return 0
	})
	return out
}
