package sentineltest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
)

// In these examples runTest(name, body) stands for a test function: it runs
// body as the test name, then the test's cleanups, as `go test` would. In
// your tests, pass the *testing.T.

// getPrice is protected code with a block handler: it answers from a
// cache when Sentinel refuses the call.
func getPrice(ctx context.Context) string {
	e, b := runtime.Entry(ctx, "getPrice")
	if b != nil {
		return fmt.Sprintf("cached price (%v)", b.Rule())
	}
	defer e.Exit()
	return "live price"
}

// A block handler is tested by forcing the block, no rules needed.
func Example() {
	runTest("TestGetPriceServesTheCacheWhenBlocked", func(t testing.TB) {
		sentineltest.Reset(t)
		sentineltest.Block(t, "getPrice", runtime.BlockFlow)
		fmt.Println(getPrice(context.Background()))
	})
	fmt.Println(getPrice(context.Background())) // the block ended with the test
	// Output:
	// cached price (sentineltest block of "getPrice" (flow))
	// live price
}

func ExampleBlock() {
	runTest("TestBlock", func(t testing.TB) {
		sentineltest.Block(t, "listOrders", runtime.BlockParamFlow)

		_, b := runtime.Entry(context.Background(), "listOrders")
		fmt.Println(b.BlockType(), errors.Is(b, runtime.ErrBlocked))
		fmt.Println(b)
		fmt.Println(b.Rule())
	})
	// Output:
	// paramflow true
	// sentinel: "listOrders" blocked by paramflow rule: forced by sentineltest
	// sentineltest block of "listOrders" (paramflow)
}

// payOrder is protected code with a fallback for an open breaker.
func payOrder(ctx context.Context) string {
	e, b := runtime.Entry(ctx, "payOrder")
	if b != nil && b.BlockType() == runtime.BlockDegrade {
		return "payment queued for later"
	}
	if b != nil {
		return "busy"
	}
	defer e.Exit()
	return "paid"
}

func ExampleOpenBreaker() {
	runTest("TestPayOrderQueuesWhileTheBreakerIsOpen", func(t testing.TB) {
		sentineltest.OpenBreaker(t, "payOrder")
		fmt.Println(payOrder(context.Background()))
	})
	// Output:
	// payment queued for later
}

// Rules still work as usual after Reset; the test's clock lets their
// windows pass without sleeping.
func ExampleClock() {
	runTest("TestOneCallPerSecond", func(t testing.TB) {
		sentineltest.Reset(t)
		clock := sentineltest.Clock(t)
		_ = flow.LoadRules([]flow.Rule{{Resource: "search", Grade: flow.GradeQPS, Count: 1}})

		for range 2 {
			e, b := runtime.Entry(context.Background(), "search")
			fmt.Println("blocked:", b != nil)
			e.Exit()
		}
		clock.Advance(time.Second)
		e, b := runtime.Entry(context.Background(), "search")
		fmt.Println("a second later, blocked:", b != nil)
		e.Exit()
	})
	fmt.Println("rules after the test:", len(flow.Rules()))
	// Output:
	// blocked: false
	// blocked: true
	// a second later, blocked: false
	// rules after the test: 0
}

func ExampleReset() {
	_ = flow.LoadRules([]flow.Rule{{Resource: "getOrder", Grade: flow.GradeQPS, Count: 0}})
	runTest("TestGetOrder", func(t testing.TB) {
		sentineltest.Reset(t)
		e, b := runtime.Entry(context.Background(), "getOrder")
		fmt.Println("rules:", len(flow.Rules()), "blocked:", b != nil)
		e.Exit()
	})
	// Output:
	// rules: 0 blocked: false
}
