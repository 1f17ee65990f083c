package datasource_test

import (
	"fmt"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

func ExampleCheck() {
	doc := []byte(`[
  {"resource": "getOrdr", "count": 20},
  {"resource": "listOrders", "count": -1}
]`)
	for _, p := range datasource.Check("flow.json", doc, datasource.Flow, []string{"getOrder", "listOrders"}) {
		fmt.Println(p)
	}
	// Output:
	// flow.json:2:3: rule 0 (resource "getOrdr"): warning: no declared resource is named "getOrdr" (did you mean "getOrder"?)
	// flow.json:3:3: rule 1 (resource "listOrders"): count -1 is negative; it must be >= 0 (0 blocks every call)
}

func ExampleLoad() {
	_, err := datasource.Load("flow.json", []byte(`[{"resource": "getOrder", "count": NaN}]`), datasource.Flow)
	fmt.Println(err)
	// Output:
	// flow.json:1:36: JSON syntax error: invalid value NaN (NaN and Infinity are not JSON numbers)
}
