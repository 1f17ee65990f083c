package sentinelotel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAFamilyNotListedYetGetsADerivedName(t *testing.T) {
	for family, want := range map[string]instrument{
		"sentinel_cluster_fallback_total":        {"sentinel.cluster_fallback", "1", counter, true, nil},
		"sentinel_cluster_latency_seconds":       {"sentinel.cluster_latency", "s", gauge, true, nil},
		"sentinel_queue_depth":                   {"sentinel.queue_depth", "1", gauge, true, nil},
		"sentinel_outage_duration_seconds_total": {"sentinel.outage_duration", "s", counter, true, nil},
	} {
		assert.Equal(t, want, derivedInstrument(family), family)
	}
	assert.Equal(t, "sentinel.circuit_breaker.state", string(attributeKey("to")))
	assert.Equal(t, "sentinel.shard", string(attributeKey("shard")), "an unknown label, in the namespace")
	dep := families["sentinel_dependency_up"]
	assert.Equal(t, "sentinel.dependency.kind", string(dep.attributeKey("kind")), "a dependency's kind is not a rule kind")
	assert.Equal(t, "sentinel.rule.kind", string(families["sentinel_rules"].attributeKey("kind")))
}

func TestEveryListedInstrumentHasItsOwnName(t *testing.T) {
	seen := map[string]string{}
	for family, in := range families {
		if other, dup := seen[in.name]; dup {
			t.Errorf("%s and %s are both %s", family, other, in.name)
		}
		seen[in.name] = family
		assert.NotEmpty(t, in.unit, family)
	}
	_, dup := seen[histogramInstrument]
	assert.False(t, dup)
}
