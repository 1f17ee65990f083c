package sentinelecho

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/internal/web"
)

func TestAHandlerAppliedAgainGetsTheHandlerItGotBefore(t *testing.T) {
	var m web.Wrapped[echo.HandlerFunc]
	made := 0
	wrap := func(next echo.HandlerFunc) echo.HandlerFunc {
		return m.Get(web.HandlerKey{Data: funcValue(next)}, func() echo.HandlerFunc {
			made++
			return func(c echo.Context) error { return next(c) }
		})
	}
	same := func(a, b echo.HandlerFunc) bool {
		return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() && funcValue(a) == funcValue(b)
	}
	routes := make([]echo.HandlerFunc, 100) // more routes than slots
	for i := range routes {
		routes[i] = func(echo.Context) error { return fmt.Errorf("route %d", i) } // a closure each
	}
	first := wrap(routes[0])
	assert.True(t, same(first, wrap(routes[0])))
	assert.Equal(t, 1, made)
	for _, r := range routes[1:] {
		assert.False(t, same(first, wrap(r)), "another route, another handler")
	}
	assert.True(t, same(first, wrap(routes[0])), "still the first")
	assert.EqualError(t, wrap(routes[7])(nil), "route 7")

	made = 0
	wrap(nil)
	wrap(nil)
	assert.Equal(t, 2, made, "a nil handler is wrapped each time, never kept")
}
