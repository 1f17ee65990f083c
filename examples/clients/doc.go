// Package clients protects calls through code the service does not own,
// with //sentinel:decorate on interface types: the order service's
// generated gRPC client (orders.go), and a database/sql driver's
// connection (db.go). sentinelgen writes ProtectOrdersClient, ProtectQueryer
// and ProtectPinger beside them; each method of what they return enters
// its own Sentinel resource, then calls the wrapped value's method with the
// entry's context. Regenerate with go generate.
package clients

//go:generate go tool sentinelgen
