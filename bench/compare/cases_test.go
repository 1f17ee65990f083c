package compare

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every implementation's cases do what the benchmarks say they measure:
// the admitting rules admit, the refusing ones refuse. (The benchmarks
// themselves run only from bench/compare.sh.)
func TestRulesAdmitAndRefuseAsTheBenchmarksSay(t *testing.T) {
	for _, im := range implementations {
		t.Run(im.name, func(t *testing.T) {
			t.Run("admitting", func(t *testing.T) {
				im.admitting(t, "compare-test-admitted")
				assert.True(t, im.enter("compare-test-admitted")())
			})
			t.Run("refusing", func(t *testing.T) {
				im.refusing(t, "compare-test-refused")
				assert.False(t, im.enter("compare-test-refused")())
			})
		})
	}
}
