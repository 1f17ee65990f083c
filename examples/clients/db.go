package clients

import (
	"context"
	"database/sql/driver"
)

// Queryer is how database/sql runs a query on a driver's connection;
// Pinger how it checks one. Each query enters "db.QueryContext", each
// ping "db.Ping", as resources of type db. The query's text is the
// hot-parameter key (args=query), so that a hot-parameter rule can limit
// one expensive query without touching the others.
//
//sentinel:decorate name=db.{method} type=db args=query
type Queryer driver.QueryerContext

//sentinel:decorate name=db.{method} type=db
type Pinger driver.Pinger

// ProtectDriver returns a driver whose connections run queries and pings
// through ProtectQueryer and ProtectPinger. The driver's connections must
// implement driver.QueryerContext and driver.Pinger (most do);
// database/sql falls back to prepared statements, unprotected, for one
// that does not.
//
//	sql.Register("postgres+sentinel", clients.ProtectDriver(&pq.Driver{}))
func ProtectDriver(d driver.Driver) driver.Driver { return protectedDriver{d} }

type protectedDriver struct{ next driver.Driver }

func (d protectedDriver) Open(name string) (driver.Conn, error) {
	c, err := d.next.Open(name)
	if err != nil {
		return nil, err
	}
	q, okQ := c.(driver.QueryerContext)
	p, okP := c.(driver.Pinger)
	if !okQ || !okP {
		return c, nil
	}
	return &protectedConn{Conn: c, queryer: ProtectQueryer(q), pinger: ProtectPinger(p)}, nil
}

// protectedConn is a driver connection whose QueryContext and Ping are
// protected; everything else is the driver's.
type protectedConn struct {
	driver.Conn
	queryer Queryer
	pinger  Pinger
}

func (c *protectedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.queryer.QueryContext(ctx, query, args)
}

func (c *protectedConn) Ping(ctx context.Context) error { return c.pinger.Ping(ctx) }
