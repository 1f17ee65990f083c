package adaptive_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
)

func Example() {
	err := adaptive.LoadRules([]adaptive.Rule{
		{Resource: "getOrder", MaxLimit: 200}, // the other fields take their defaults
	})
	if err != nil {
		fmt.Println(err)
	}
	defer adaptive.LoadRules(nil)

	e, b := runtime.Entry(context.Background(), "getOrder")
	if b != nil {
		// b.BlockType() == runtime.BlockAdaptive: the limit is reached.
		fmt.Println(errors.Is(b, runtime.ErrBlocked))
		return
	}
	defer e.Exit()
	st := adaptive.States()[0]
	fmt.Println(st.Resource, "limit", st.Limit, "probing", st.Probing, "in flight", st.InFlight)
	// Output: getOrder limit 3 probing true in flight 1
}
