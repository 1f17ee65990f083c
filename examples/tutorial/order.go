// Package tutorial is README's five-minute tutorial as code that builds
// and is tested: a method protected by a directive, its block handler, and
// the start-up code that loads and watches a rule file.
package tutorial

import (
	"context"
	"errors"

	"github.com/sentinelgen/sentinelgen/runtime"
)

//go:generate go tool sentinelgen

// Order is what GetOrder returns.
type Order struct {
	ID int64
}

// ErrBusy is the answer while getOrder's rules refuse calls.
var ErrBusy = errors.New("orders: busy, try again later")

// OrderService serves orders; callers call the generated GetOrder.
type OrderService struct{}

//sentinel:resource name=getOrder blockHandler=handleBlock
func (s *OrderService) getOrder(ctx context.Context, id int64) (*Order, error) {
	return &Order{ID: id}, nil
}

func (s *OrderService) handleBlock(ctx context.Context, id int64, b *runtime.BlockError) (*Order, error) {
	return nil, ErrBusy
}
