package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

//go:generate go tool sentinelgen

// Order is what the service sells.
type Order struct {
	ID       int64   `json:"id"`
	User     string  `json:"user"`
	Item     string  `json:"item"`
	Amount   float64 `json:"amount"`
	Status   string  `json:"status"`
	Degraded bool    `json:"degraded,omitempty"` // served by a block handler or fallback
}

// Errors the service returns; the HTTP layer maps them to statuses.
var (
	ErrNotFound = errors.New("order not found")
	ErrBusy     = errors.New("service busy, try again")
)

// OrderService is the business layer. Its lowercase methods hold the
// business logic and carry //sentinel:resource directives; sentinelgen
// writes the exported wrappers (GetOrder, CreateOrder, PayOrder,
// ListOrders) in service_sentinel.go, and the HTTP layer calls those.
type OrderService struct {
	payments *PaymentClient
	// createDelay is how long an order creation holds its thread: the
	// thread-count rule on createOrder limits how many run at once.
	createDelay time.Duration

	mu     sync.Mutex
	nextID int64
	orders map[int64]*Order
}

// NewOrderService returns a service with a few orders in stock.
func NewOrderService(payments *PaymentClient, createDelay time.Duration) *OrderService {
	s := &OrderService{payments: payments, createDelay: createDelay, orders: map[int64]*Order{}}
	for i, u := range []string{"alice", "bob", "vip", "alice"} {
		s.nextID++
		s.orders[s.nextID] = &Order{ID: s.nextID, User: u, Item: fmt.Sprintf("book-%d", i+1), Amount: 10 * float64(i+1), Status: "new"}
	}
	return s
}

// getOrder reads one order. Its own resource, getOrder, is limited apart
// from the URL resource /api/order that the middleware protects: the seed's
// Spring example, where the URL rule and the method rule are checked
// separately.
//
//sentinel:resource name=getOrder blockHandler=getOrderBlocked ignore=ErrNotFound
func (s *OrderService) getOrder(ctx context.Context, id int64) (*Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return nil, ErrNotFound
	}
	cp := *o
	return &cp, nil
}

// getOrderBlocked serves a degraded answer instead of failing: the order
// exists, its details are not loaded.
func (s *OrderService) getOrderBlocked(ctx context.Context, id int64, b *runtime.BlockError) (*Order, error) {
	return &Order{ID: id, Status: "unknown", Degraded: true}, nil
}

// createOrder stores a new order. A thread-count rule limits how many
// creations run at once.
//
//sentinel:resource name=createOrder blockHandler=createOrderBlocked
func (s *OrderService) createOrder(ctx context.Context, user, item string, amount float64) (*Order, error) {
	select {
	case <-time.After(s.createDelay): // the slow part: stock checks, persistence
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	o := &Order{ID: s.nextID, User: user, Item: item, Amount: amount, Status: "new"}
	s.orders[o.ID] = o
	cp := *o
	return &cp, nil
}

func (s *OrderService) createOrderBlocked(ctx context.Context, user, item string, amount float64, b *runtime.BlockError) (*Order, error) {
	return nil, ErrBusy
}

// payOrder charges an order through the payment provider, a flaky
// downstream reached through the outbound transport. An error-ratio
// circuit breaker on payOrder stops calling it while it fails; the
// fallback then accepts the payment for later processing.
//
//sentinel:resource name=payOrder fallback=payOrderFallback
func (s *OrderService) payOrder(ctx context.Context, id int64) (*Order, error) {
	o, err := s.getOrder(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.payments.Charge(ctx, o.ID, o.Amount); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orders[id].Status = "paid"
	o.Status = "paid"
	return o, nil
}

// payOrderFallback runs when the charge failed or the breaker is open.
func (s *OrderService) payOrderFallback(ctx context.Context, id int64, err error) (*Order, error) {
	if errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return &Order{ID: id, Status: "payment-pending", Degraded: true}, nil
}

// listOrders lists a user's orders. A hot-parameter rule on its first
// argument limits each user separately, with a higher limit for "vip".
//
//sentinel:resource name=listOrders args=user blockHandler=listOrdersBlocked
func (s *OrderService) listOrders(ctx context.Context, user string) ([]Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Order
	for _, o := range s.orders {
		if o.User == user {
			out = append(out, *o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (s *OrderService) listOrdersBlocked(ctx context.Context, user string, b *runtime.BlockError) ([]Order, error) {
	return nil, ErrBusy
}
