package datasource

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSuggest(t *testing.T) {
	names := []string{"getOrder", "listOrders", "flow", "paramFlow", "/api/order"}
	tests := []struct{ in, want string }{
		{"getOrdr", "getOrder"},
		{"getOrders", "getOrder"},
		{"GETORDER", "getOrder"},
		{"flwo", "flow"},
		{"paramflow", "paramFlow"},
		{"/api/orders", "/api/order"},
		{"deleteEverything", ""},
		{"x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, suggest(tt.in, names), tt.in)
	}
	assert.Equal(t, "", suggest("a", nil))
}

func TestEditDistance(t *testing.T) {
	assert.Equal(t, 0, editDistance("abc", "abc"))
	assert.Equal(t, 1, editDistance("abc", "acb"))
	assert.Equal(t, 3, editDistance("", "abc"))
	assert.Equal(t, 1, editDistance("订单", "订阅单"))
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncd\n")
	l, c := position(data, 0)
	assert.Equal(t, [2]int{1, 1}, [2]int{l, c})
	l, c = position(data, 4)
	assert.Equal(t, [2]int{2, 2}, [2]int{l, c})
	l, c = position(data, 100)
	assert.Equal(t, [2]int{3, 1}, [2]int{l, c})
}
