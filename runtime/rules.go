package runtime

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// RuleError is one invalid rule: its index in the list being loaded, the
// resource it names, the offending JSON field, and why it is refused.
type RuleError struct {
	Index    int
	Resource string
	Field    string // Java's JSON field name; "" when the rule as a whole is wrong
	Reason   string
}

func (e *RuleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rule %d", e.Index)
	if e.Resource != "" {
		fmt.Fprintf(&b, " (resource %s)", quoteResource(e.Resource))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(" ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// maxQuotedResource is how much of a resource a RuleError quotes: a 4 KiB
// regex pattern quoted whole would push the field and the reason past the
// end of an error line (runtime/datasource cuts each at 512 bytes).
const maxQuotedResource = 120

// quoteResource quotes the resource, cut on a rune boundary to
// maxQuotedResource bytes and then saying how long it was.
func quoteResource(s string) string {
	if len(s) <= maxQuotedResource {
		return fmt.Sprintf("%q", s)
	}
	cut := maxQuotedResource
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…(%d bytes)", s[:cut], len(s))
}

// RuleErrors is every invalid rule of a refused rule set, in index order.
// LoadRules functions return it; nothing of a refused set is loaded.
type RuleErrors []*RuleError

func (es RuleErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As find each RuleError.
func (es RuleErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Property is Sentinel's SentinelProperty: the rules of one kind as a data
// source last delivered them. Each rule package owns one; a data source
// calls Update, which validates and loads the rules (all or nothing) and
// then tells the listeners. Update with a set that is refused leaves the
// rules in force and the property's value unchanged.
type Property[T any] struct {
	load func(T) error

	mu        sync.Mutex
	value     T
	listeners map[int]func(T)
	nextID    int
}

// NewProperty returns a property that loads its values with load.
func NewProperty[T any](load func(T) error) *Property[T] {
	return &Property[T]{load: load}
}

// Update loads v; on success v becomes the property's value and every
// listener is called with it. Updates are serialised, and listeners run
// inside the update, so they see values in order; a listener must not
// Update the same property.
func (p *Property[T]) Update(v T) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.load(v); err != nil {
		return err
	}
	p.value = v
	ids := make([]int, 0, len(p.listeners))
	for id := range p.listeners {
		ids = append(ids, id)
	}
	sort.Ints(ids) // registration order
	for _, id := range ids {
		p.listeners[id](v)
	}
	return nil
}

// Value is the last value loaded through Update.
func (p *Property[T]) Value() T {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.value
}

// Listen calls l with every value loaded from now on, until cancel is
// called.
func (p *Property[T]) Listen(l func(T)) (cancel func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listeners == nil {
		p.listeners = map[int]func(T){}
	}
	id := p.nextID
	p.nextID++
	p.listeners[id] = l
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.listeners, id)
	}
}
