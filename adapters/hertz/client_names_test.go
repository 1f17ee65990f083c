package sentinelhertz

import (
	"strings"
	"testing"

	"github.com/cloudwego/hertz/pkg/protocol"
	"github.com/stretchr/testify/assert"
)

// A URL past maxClientNameBytes is named as any other, but its name is not
// kept in the slots: what they hold stays bounded whatever URLs are called.
func TestClientNamesKeepNoLongName(t *testing.T) {
	var names clientNames
	req := protocol.NewRequest("GET", "http://example.com/"+strings.Repeat("a", 2*maxClientNameBytes), nil)
	_, name := names.get(req)
	assert.Equal(t, "GET:http://example.com/"+strings.Repeat("a", 2*maxClientNameBytes), name)
	for i := range names.slots {
		assert.Nil(t, names.slots[i].Load(), "slot %d", i)
	}

	short := protocol.NewRequest("GET", "http://example.com/a", nil)
	_, name = names.get(short)
	assert.Equal(t, "GET:http://example.com/a", name)
	kept := 0
	for i := range names.slots {
		if names.slots[i].Load() != nil {
			kept++
		}
	}
	assert.Equal(t, 1, kept)
}
