package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// The default answer is http.Error's 429 with Retry-After, though its
// header values and body are built once.
func TestDefaultBlockHandlerAnswersAsHTTPError(t *testing.T) {
	want := httptest.NewRecorder()
	want.Header().Set("Retry-After", "1")
	http.Error(want, nethttp.BlockMessage, http.StatusTooManyRequests)

	got := httptest.NewRecorder()
	got.Header().Set("Content-Length", "999") // for some other content: dropped, as http.Error drops it
	nethttp.DefaultBlockHandler(got, httptest.NewRequest("GET", "/", nil), nil)

	assert.Equal(t, want.Code, got.Code)
	assert.Equal(t, want.Header(), got.Header())
	assert.Equal(t, want.Body.String(), got.Body.String())
}

// A middleware after the block handler that adds to the answer's header
// changes its own response only, never the shared values.
func TestDefaultBlockAnswersDoNotShareWhatIsAddedToThem(t *testing.T) {
	first := httptest.NewRecorder()
	nethttp.DefaultBlockHandler(first, nil, nil)
	first.Header().Add("Content-Type", "added")
	first.Header().Add("Retry-After", "added")

	second := httptest.NewRecorder()
	nethttp.DefaultBlockHandler(second, nil, nil)
	assert.Equal(t, []string{"text/plain; charset=utf-8"}, second.Header()["Content-Type"])
	assert.Equal(t, []string{"1"}, second.Header()["Retry-After"])
	assert.Equal(t, []string{"text/plain; charset=utf-8", "added"}, first.Header()["Content-Type"])
}
