// Package fakerules is a rule package for the data source's tests: it keeps
// the rule loading contract (Property, LoadRules returning
// runtime.RuleErrors, ValidateRules, Rules) with state per Manager, so tests
// do not share rules and need not wait for the real rule packages.
package fakerules

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Grade is an enum decoded as the real rule packages do.
type Grade int

var gradeNames = map[int][]string{0: {"THREAD"}, 1: {"QPS"}}

func (g *Grade) UnmarshalJSON(data []byte) error {
	code, err := ruleutil.DecodeEnum(data, gradeNames)
	*g = Grade(code)
	return err
}

// Rule looks like a flow rule.
type Rule struct {
	Resource        string  `json:"resource"`
	LimitApp        string  `json:"limitApp,omitempty"`
	Grade           Grade   `json:"grade"`
	Count           float64 `json:"count"`
	ControlBehavior int     `json:"controlBehavior"`
	Regex           bool    `json:"regex,omitempty"`
}

func (r *Rule) ResourceName() string { return r.Resource }

// UnmarshalJSON pre-fills Java's defaults (grade QPS).
func (r *Rule) UnmarshalJSON(data []byte) error {
	type alias Rule
	a := alias{Grade: 1}
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	*r = Rule(a)
	return nil
}

// Manager is one rule kind's state.
type Manager struct {
	name  string
	rules atomic.Pointer[[]Rule]
	prop  *runtime.Property[[]Rule]

	mu       sync.Mutex
	failLoad error // LoadRules fails with it after validating (to test rollbacks)
	loads    int
}

// New returns an empty manager.
func New(name string) *Manager {
	m := &Manager{name: name}
	m.prop = runtime.NewProperty(m.LoadRules)
	return m
}

// Kind is the manager's data source kind. Its threshold is count, as a
// flow rule's: a misspelling of it left unset refuses the document.
func (m *Manager) Kind() datasource.Kind {
	return datasource.NewKind(m.name, m.prop, m.ValidateRules, m.Rules, datasource.WithThresholds[Rule]("count"))
}

func (m *Manager) Property() *runtime.Property[[]Rule] { return m.prop }

// FailLoads makes LoadRules fail with err (nil: succeed again).
func (m *Manager) FailLoads(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failLoad = err
}

// Loads counts successful loads.
func (m *Manager) Loads() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.loads
}

func (m *Manager) ValidateRules(rules []Rule) error {
	var errs runtime.RuleErrors
	for i, r := range rules {
		add := func(field, reason string) {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: r.Resource, Field: field, Reason: reason})
		}
		if strings.TrimSpace(r.Resource) == "" {
			add("resource", "is blank")
		}
		if math.IsNaN(r.Count) || math.IsInf(r.Count, 0) || r.Count < 0 {
			add("count", fmt.Sprintf("%v is not a number >= 0", r.Count))
		}
		if r.ControlBehavior < 0 || r.ControlBehavior > 3 {
			add("controlBehavior", fmt.Sprintf("%d is not one of 0..3", r.ControlBehavior))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func (m *Manager) LoadRules(rules []Rule) error {
	if err := m.ValidateRules(rules); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failLoad != nil {
		return m.failLoad
	}
	cp := append([]Rule(nil), rules...)
	m.rules.Store(&cp)
	m.loads++
	return nil
}

func (m *Manager) Rules() []Rule {
	p := m.rules.Load()
	if p == nil {
		return nil
	}
	return append([]Rule(nil), (*p)...)
}

// Resources lists the resources in force, in order.
func (m *Manager) Resources() []string {
	var out []string
	for _, r := range m.Rules() {
		out = append(out, r.Resource)
	}
	return out
}

// ErrBroken is a load failure tests inject.
var ErrBroken = errors.New("the rule store is broken")

// Document is a rule document with one rule per resource name, as the
// fake manager reads it.
func Document(names ...string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = `{"resource":"` + n + `","count":10}`
	}
	return "[" + strings.Join(parts, ",") + "]"
}
