package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// Collector is a prometheus.Collector of the runtime's figures. It reads
// them when scraped; calls do no work for it. Register it on the
// application's registry:
//
//	reg.MustRegister(metrics.NewCollector(metrics.WithSource(src)))
//
// A Collector is safe for concurrent scrapes.
type Collector struct {
	cfg config

	mu     sync.Mutex // serialises folding
	res    map[string]*totals
	inroot totals
}

// NewCollector returns a collector of every resource's figures, the rules
// in force, the circuit breakers, and the data sources given with
// WithSource.
func NewCollector(opts ...Option) *Collector {
	c := &Collector{res: make(map[string]*totals)}
	for _, o := range opts {
		o(&c.cfg)
	}
	if c.cfg.kinds == nil {
		c.cfg.kinds = datasource.Kinds()
	}
	c.cfg.kinds = append(c.cfg.kinds, c.cfg.extraKinds...)
	watchTransitions()
	return c
}

// Option configures a Collector.
type Option func(*config)

type config struct {
	sources    []datasource.Source
	kinds      []datasource.Kind
	extraKinds []datasource.Kind
	maxOrigins int
}

// WithSource reports src's reloads: how many versions it loaded and
// refused, whether the last one loaded, and how many rules it holds.
func WithSource(src datasource.Source) Option {
	return func(c *config) { c.sources = append(c.sources, src) }
}

// WithRuleKind also counts the rules of a kind of the application's own
// (made with datasource.NewKind) in sentinel_rules.
func WithRuleKind(k datasource.Kind) Option {
	return func(c *config) { c.extraKinds = append(c.extraKinds, k) }
}

// Describe sends every metric's descriptor.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect reads the runtime's figures and sends them.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	now := runtime.NowMillis()
	e := newEmitter(ch)
	c.collectResources(e, now)
	c.collectRules(e)
	c.collectBreakers(e)
	collectAdaptive(e)
	c.collectSources(e)
	collectDependencies(e)
}

// Fold folds the settled seconds of every resource's history into its
// totals, as a scrape does. Scrapes at least every 55 s keep the counters
// exact; an application scraped less often calls Fold from a ticker.
func (c *Collector) Fold() {
	now := runtime.NowMillis()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range runtime.Resources() {
		if cn := r.ClusterNode(); cn != nil {
			c.totalsOf(r.Name()).update(cn.History(now), now)
		}
	}
	c.inroot.update(runtime.InboundNode().History(now), now)
}

func (c *Collector) totalsOf(name string) *totals {
	t := c.res[name]
	if t == nil {
		t = &totals{}
		c.res[name] = t
	}
	return t
}

// blockCounter is what the core would offer for blocks by type: a
// monotonic count of the calls each type of rule blocked (see the package
// doc). The collector uses it as soon as *runtime.Resource has it.
type blockCounter interface {
	BlockCount(t runtime.BlockType) int64
}

func (c *Collector) collectResources(e *emitter, now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range runtime.Resources() {
		cn := r.ClusterNode()
		if cn == nil {
			continue
		}
		name := r.Name()
		buckets := cn.History(now)
		t := c.totalsOf(name).update(buckets, now)
		sendCounts(e, resourceDescs, t, name)
		e.send(resourceDescs.concurrent, prometheus.GaugeValue, float64(cn.Threads()), name)
		if rt, ok := lastMinRT(buckets, now); ok {
			e.send(resourceDescs.minRT, prometheus.GaugeValue, rt/1000, name)
		}
		if c.cfg.maxOrigins > 0 {
			c.collectOrigins(e, r, cn, now)
		}
		if bc, ok := any(r).(blockCounter); ok {
			for bt := runtime.BlockFlow; bt <= runtime.BlockCustom; bt++ {
				e.send(blockByTypeDesc, prometheus.CounterValue, float64(bc.BlockCount(bt)), name, bt.String())
			}
		}
		collectDryRun(e, r, name)
		if h, ok := r.RTHistogram(); ok {
			e.histogram(rtHistogramDesc, h, name)
		}
	}
	in := runtime.InboundNode()
	buckets := in.History(now)
	sendCounts(e, inboundDescs, c.inroot.update(buckets, now))
	e.send(inboundDescs.concurrent, prometheus.GaugeValue, float64(in.Threads()))
	if rt, ok := lastMinRT(buckets, now); ok {
		e.send(inboundDescs.minRT, prometheus.GaugeValue, rt/1000)
	}
}

func sendCounts(e *emitter, d *nodeDescs, t counts, labels ...string) {
	e.send(d.pass, prometheus.CounterValue, float64(t.pass), labels...)
	e.send(d.block, prometheus.CounterValue, float64(t.block), labels...)
	e.send(d.success, prometheus.CounterValue, float64(t.success), labels...)
	e.send(d.errors, prometheus.CounterValue, float64(t.errors), labels...)
	e.summary(d.rt, uint64(max(t.success, 0)), float64(t.rtMs)/1000, labels...)
}

// lastMinRT is the smallest response time, in ms, of the last whole second,
// when calls completed in it.
func lastMinRT(buckets []stat.Counts, now int64) (float64, bool) {
	prev := now - now%1000 - 1000
	for i := len(buckets) - 1; i >= 0; i-- {
		if b := buckets[i]; b.Start == prev {
			if b.Success == 0 {
				return 0, false
			}
			return float64(b.MinRT), true
		}
	}
	return 0, false
}

func (c *Collector) collectRules(e *emitter) {
	for _, k := range c.cfg.kinds {
		e.send(rulesDesc, prometheus.GaugeValue, float64(k.Count()), k.Name())
	}
}

// breakerStates are the label values of sentinel_circuit_breaker_state.
var breakerStates = [...]string{"closed", "open", "half_open"}

func (c *Collector) collectBreakers(e *emitter) {
	// A resource may have several breakers (one per rule); the rule label
	// is the breaker's position among its resource's, which follows the
	// rules' order, so it stays put until the rules change.
	prev, n := "", 0
	for _, b := range degrade.Breakers() {
		if b.Resource != prev {
			prev, n = b.Resource, 0
		}
		rule := strconv.Itoa(n)
		n++
		state := int(b.State)
		for i, s := range breakerStates {
			v := 0.0
			if i == state {
				v = 1
			}
			e.send(breakerDesc, prometheus.GaugeValue, v,
				b.Resource, rule, b.Rule.Grade.String(), s)
		}
	}
	for k, n := range transitionCounts() {
		if int(k.to) < 0 || int(k.to) >= len(breakerStates) {
			continue
		}
		e.send(transitionDesc, prometheus.CounterValue, float64(n), k.resource, breakerStates[k.to])
	}
}

func (c *Collector) collectSources(e *emitter) {
	for _, src := range c.cfg.sources {
		s := src.Status()
		kind := s.Kind
		labels := []string{s.Path, kind}
		e.send(sourceDescs.loads, prometheus.CounterValue, float64(s.Loads), labels...)
		e.send(sourceDescs.refusals, prometheus.CounterValue, float64(s.Refusals), labels...)
		e.send(sourceDescs.rules, prometheus.GaugeValue, float64(s.Rules), labels...)
		ok := 0.0
		if s.LastError == nil && !s.LastLoad.IsZero() {
			ok = 1
		}
		e.send(sourceDescs.lastOK, prometheus.GaugeValue, ok, labels...)
		if !s.LastLoad.IsZero() {
			e.send(sourceDescs.lastLoad, prometheus.GaugeValue,
				float64(s.LastLoad.UnixMilli())/1000, labels...)
		}
	}
}
