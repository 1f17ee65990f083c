package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// javaNodeVo is the dashboard's NodeVo with Java's boxed types: a field
// the service leaves out is null, and a field NodeVo does not have is an
// error here.
type javaNodeVo struct {
	ID                 *string `json:"id"`
	ParentID           *string `json:"parentId"`
	Resource           *string `json:"resource"`
	ThreadNum          *int32  `json:"threadNum"`
	PassQPS            *int64  `json:"passQps"`
	BlockQPS           *int64  `json:"blockQps"`
	TotalQPS           *int64  `json:"totalQps"`
	AverageRT          *int64  `json:"averageRt"`
	SuccessQPS         *int64  `json:"successQps"`
	ExceptionQPS       *int64  `json:"exceptionQps"`
	OneMinutePass      *int64  `json:"oneMinutePass"`
	OneMinuteBlock     *int64  `json:"oneMinuteBlock"`
	OneMinuteException *int64  `json:"oneMinuteException"`
	OneMinuteTotal     *int64  `json:"oneMinuteTotal"`
	Timestamp          *int64  `json:"timestamp"`
}

func decodeNodes(t *testing.T, body string) []javaNodeVo {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.DisallowUnknownFields()
	var out []javaNodeVo
	require.NoError(t, dec.Decode(&out), body)
	for _, n := range out {
		require.NotNil(t, n.Resource)
		require.NotNil(t, n.PassQPS)
		require.NotNil(t, n.Timestamp)
	}
	return out
}

// calls makes a call tree in a context of its own: outer, with inner
// nested in it, three times, from origin appA; one inner call fails.
func calls(t *testing.T, prefix string) (ctxName, outer, inner string) {
	t.Helper()
	ctxName, outer, inner = prefix+"_ctx", prefix+".outer", prefix+".inner"
	ctx := runtime.EnterContext(context.Background(), ctxName, "appA")
	for i := range 3 {
		e, b := runtime.Entry(ctx, outer)
		require.Nil(t, b)
		ie, b := runtime.Entry(e.Context(), inner)
		require.Nil(t, b)
		if i == 0 {
			ie.SetError(context.Canceled)
		}
		ie.Exit()
		e.Exit()
	}
	return
}

// jsonTree is what the dashboard's "resource chain" page reads: NodeVos in
// preorder whose parentId links rebuild the tree.
func TestJSONTreeIsNodeVoLinkedByParentID(t *testing.T) {
	clk := clocktest.Install(t)
	ctxName, outer, inner := calls(t, "tree")
	clk.Advance(100 * time.Millisecond)
	srv := start(t, transport.Config{})

	code, body := get(t, srv, "jsonTree", url.Values{"type": {"root"}})
	require.Equal(t, http.StatusOK, code, body)
	nodes := decodeNodes(t, body)
	byName := map[string]javaNodeVo{}
	for _, n := range nodes {
		require.NotNil(t, n.ID, "every tree node has an id")
		byName[*n.Resource] = n
	}
	root := nodes[0]
	assert.Equal(t, transport.RootName, *root.Resource, "preorder from machine-root")
	assert.Nil(t, root.ParentID)
	entrance, ok := byName[ctxName]
	require.True(t, ok, "the context's entrance")
	assert.Equal(t, *root.ID, *entrance.ParentID)
	o, i := byName[outer], byName[inner]
	require.NotNil(t, o.ParentID)
	assert.Equal(t, *entrance.ID, *o.ParentID)
	assert.Equal(t, *o.ID, *i.ParentID, "inner was called inside outer")
	assert.EqualValues(t, 3, *o.PassQPS)
	assert.EqualValues(t, 3, *o.SuccessQPS)
	assert.EqualValues(t, 3, *o.TotalQPS)
	assert.EqualValues(t, 1, *i.ExceptionQPS)
	assert.EqualValues(t, 0, *o.ThreadNum)
	assert.EqualValues(t, 3, *entrance.PassQPS, "an entrance sums its children")
	assert.EqualValues(t, clk.Millis(), *o.Timestamp)
	assert.Len(t, strings.Split(*o.ID, "-"), 5, "a UUID")
}

// clusterNode is what the dashboard's "real-time" and "resource" pages
// read: one NodeVo per resource, with the minute's totals and no ids.
func TestClusterNodeIsNodeVo(t *testing.T) {
	clk := clocktest.Install(t)
	_, outer, inner := calls(t, "cnode")
	clk.Advance(1500 * time.Millisecond)
	idle := "cnode.idle"
	runtime.Declare(runtime.ResourceSpec{Name: idle})
	srv := start(t, transport.Config{})

	code, body := get(t, srv, "clusterNode", url.Values{"type": {"notZero"}})
	require.Equal(t, http.StatusOK, code, body)
	byName := map[string]javaNodeVo{}
	for _, n := range decodeNodes(t, body) {
		assert.Nil(t, n.ID, "cluster nodes are not in the tree")
		assert.Nil(t, n.ParentID)
		byName[*n.Resource] = n
	}
	require.Contains(t, byName, outer)
	require.Contains(t, byName, inner)
	assert.NotContains(t, byName, idle, "notZero leaves out resources without calls this minute")
	o := byName[outer]
	assert.EqualValues(t, 3, *o.OneMinutePass)
	assert.EqualValues(t, 0, *o.OneMinuteBlock)
	assert.EqualValues(t, 3, *o.OneMinuteTotal)
	assert.EqualValues(t, 1, *byName[inner].OneMinuteException)
	assert.EqualValues(t, 0, *o.PassQPS, "the last second had no call")

	_, body = get(t, srv, "clusterNode", url.Values{"type": {"zero"}})
	assert.Contains(t, body, `"resource":"`+idle+`"`, "type=zero lists every resource")
	assert.NotContains(t, body, runtime.OverflowResourceName, "nothing overflowed: no call was counted there")

	_, body = get(t, srv, "clusterNodeById", url.Values{"id": {outer}})
	var one javaNodeVo
	require.NoError(t, json.Unmarshal([]byte(body), &one))
	assert.Equal(t, outer, *one.Resource)
	_, body = get(t, srv, "clusterNodeById", url.Values{"id": {"no.such"}})
	assert.Equal(t, "{}", body)
	code, body = get(t, srv, "clusterNodeById", nil)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "Invalid parameter: empty clusterNode name", body)
}

func TestTextCommands(t *testing.T) {
	clk := clocktest.Install(t)
	ctxName, outer, _ := calls(t, "text")
	clk.Advance(100 * time.Millisecond)
	srv := start(t, transport.Config{})

	_, body := get(t, srv, "tree", nil)
	assert.Contains(t, body, "EntranceNode: machine-root(")
	assert.Contains(t, body, "\n-EntranceNode: "+ctxName+"(t:0 pq:3.0 bq:0.0 tq:3.0 ")
	assert.Contains(t, body, "\n--"+outer+"(t:0 pq:3.0 ")
	assert.Contains(t, body, "1mt:1m-total\r\n")
	_, body = get(t, srv, "tree", url.Values{"id": {ctxName}})
	assert.True(t, strings.HasPrefix(body, "EntranceNode: "+ctxName+"("), body)

	_, body = get(t, srv, "cnode", url.Values{"id": {"text."}})
	lines := strings.Split(body, "\n")
	assert.True(t, strings.HasPrefix(lines[0], "idx id"), body)
	assert.Contains(t, body, outer)
	code, body := get(t, srv, "cnode", nil)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "empty clusterNode name")

	_, body = get(t, srv, "origin", url.Values{"id": {outer}})
	assert.True(t, strings.HasPrefix(body, "id: "+outer+"\n\nidx origin"), body)
	assert.Contains(t, body, "appA")
	_, body = get(t, srv, "origin", url.Values{"id": {"no.such"}})
	assert.Equal(t, "Not find cNode with id no.such", body)

	_, body = get(t, srv, "systemStatus", nil)
	var st map[string]float64
	require.NoError(t, json.Unmarshal([]byte(body), &st), body)
	for _, k := range []string{"rqps", "qps", "b", "r", "t"} {
		assert.Contains(t, st, k)
	}
}

func TestInfoCommands(t *testing.T) {
	srv := start(t, transport.Config{Hostname: "host-a"})
	_, body := get(t, srv, "version", nil)
	assert.Equal(t, transport.Version, body)

	_, body = get(t, srv, "basicInfo", nil)
	var info map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &info), body)
	assert.Equal(t, map[string]string{"machine": "host-a", "ip": "127.0.0.1"}, info)

	_, body = get(t, srv, "api", nil)
	var api []struct{ URL, Desc string }
	require.NoError(t, json.Unmarshal([]byte(body), &api), body)
	var urls []string
	for _, a := range api {
		urls = append(urls, a.URL)
		assert.NotEmpty(t, a.Desc)
	}
	for _, c := range []string{"version", "api", "basicInfo", "jsonTree", "tree", "clusterNode", "cnode", "origin",
		"getRules", "setRules", "getParamFlowRules", "setParamFlowRules", "metric", "getSwitch", "setSwitch",
		"systemStatus", "getClusterMode"} {
		assert.Contains(t, urls, "/"+c)
	}
}
