package clients

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
)

// fakeDriver is a database driver whose every query returns the rows
// 1, 2, 3 in one column n; it counts the queries and pings it gets.
type fakeDriver struct{ queries, pings atomic.Int64 }

func (d *fakeDriver) Open(string) (driver.Conn, error) { return &fakeConn{d: d}, nil }

type fakeConn struct{ d *fakeDriver }

func (c *fakeConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("fake: no statements")
}
func (c *fakeConn) Close() error              { return nil }
func (c *fakeConn) Begin() (driver.Tx, error) { return nil, errors.New("fake: no transactions") }

func (c *fakeConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.d.queries.Add(1)
	return &fakeRows{}, nil
}

func (c *fakeConn) Ping(ctx context.Context) error {
	c.d.pings.Add(1)
	return nil
}

type fakeRows struct{ n int64 }

func (r *fakeRows) Columns() []string { return []string{"n"} }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.n == 3 {
		return io.EOF
	}
	r.n++
	dest[0] = r.n
	return nil
}

// openDB opens a database on the fake driver, protected.
func openDB(t *testing.T) (*sql.DB, *fakeDriver) {
	t.Helper()
	fake := &fakeDriver{}
	db := sql.OpenDB(connector{ProtectDriver(fake)})
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db, fake
}

// connector opens connections of a driver.Driver, as sql.Open does for
// a registered one.
type connector struct{ d driver.Driver }

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open("") }
func (c connector) Driver() driver.Driver                        { return c.d }

func TestQueriesAreProtectedAndAnswerWhenAdmitted(t *testing.T) {
	sentineltest.Reset(t)
	db, fake := openDB(t)
	rows, err := db.QueryContext(t.Context(), "SELECT n FROM numbers")
	require.NoError(t, err)
	var got []int64
	for rows.Next() {
		var n int64
		require.NoError(t, rows.Scan(&n))
		got = append(got, n)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []int64{1, 2, 3}, got)
	assert.EqualValues(t, 1, fake.queries.Load())
	r := runtime.LookupResource("db.QueryContext")
	assert.EqualValues(t, 1, r.ClusterNode().PassQPS(runtime.NowMillis()))
	assert.Equal(t, runtime.DBSQL, r.Spec().Type)
	assert.Equal(t, []string{"query"}, r.Spec().Params, "the query's text is the hot-parameter key")
}

func TestRefusedQueriesAndPingsNeverReachTheDriver(t *testing.T) {
	sentineltest.Reset(t)
	sentineltest.Block(t, "db.QueryContext", runtime.BlockFlow)
	sentineltest.Block(t, "db.Ping", runtime.BlockSystem)
	db, fake := openDB(t)

	_, err := db.QueryContext(t.Context(), "SELECT n FROM numbers")
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b, "database/sql returns the driver's error as it is")
	assert.Equal(t, runtime.BlockFlow, b.BlockType())

	err = db.PingContext(t.Context())
	require.ErrorAs(t, err, &b)
	assert.Equal(t, "db.Ping", b.Resource())

	assert.Zero(t, fake.queries.Load())
	assert.Zero(t, fake.pings.Load(), "database/sql pinged through the protected connection only")
}
