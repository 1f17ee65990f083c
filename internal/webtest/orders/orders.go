// Package orders is the business code behind the web adapters' test
// routes: one method protected by a generated wrapper, so the tests can
// see its resource nest under the route that calls it.
package orders

import "context"

//go:generate go tool sentinelgen

// LookupResource is lookup's resource.
const LookupResource = "webtest.lookupOrder"

// lookup finds an order; the route's handler calls its wrapper, Lookup,
// with the request's context.
//
//sentinel:resource name=webtest.lookupOrder
func lookup(ctx context.Context, id string) (string, error) {
	return "order " + id, nil
}
