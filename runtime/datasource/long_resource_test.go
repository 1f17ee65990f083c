package datasource_test

import (
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A refused 4 KB regex pattern used to fill the whole 512-byte error line,
// so the operator never saw the field or the reason.
func TestRefusalOfALongResourceNamesTheFieldAndTheReason(t *testing.T) {
	pattern := strings.Repeat("a{9}", 1000) // 4000 bytes, 9000 instructions
	doc := `{"flow":[{"resource":"` + pattern + `","regex":true,"count":1}]}`
	_, err := datasource.Load("rules.json", []byte(doc), datasource.Combined)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `…(4000 bytes)): resource is refused (regex is true): the pattern compiles to`)
	assert.Contains(t, err.Error(), "over the cap of 5000")
}
