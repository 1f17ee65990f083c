package transport

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// RootName is the name of the invocation tree's root (Java's
// Constants.ROOT_ID).
const RootName = "machine-root"

// TotalInboundName is the resource name of every inbound call summed
// (Java's Constants.TOTAL_IN_RESOURCE_NAME); the metric command and the
// metric log report it, and the dashboard leaves it out of its charts.
const TotalInboundName = "__total_inbound_traffic__"

// nodeVO is a node as the dashboard reads it (Java's NodeVo): QPS figures
// truncated to whole numbers, the minute's totals, and, in the tree, an id
// and the parent's id.
type nodeVO struct {
	ID                 string `json:"id,omitempty"`
	ParentID           string `json:"parentId,omitempty"`
	Resource           string `json:"resource"`
	ThreadNum          int64  `json:"threadNum"`
	PassQPS            int64  `json:"passQps"`
	BlockQPS           int64  `json:"blockQps"`
	TotalQPS           int64  `json:"totalQps"`
	AverageRT          int64  `json:"averageRt"`
	SuccessQPS         int64  `json:"successQps"`
	ExceptionQPS       int64  `json:"exceptionQps"`
	OneMinutePass      int64  `json:"oneMinutePass"`
	OneMinuteBlock     int64  `json:"oneMinuteBlock"`
	OneMinuteException int64  `json:"oneMinuteException"`
	OneMinuteTotal     int64  `json:"oneMinuteTotal"`
	Timestamp          int64  `json:"timestamp"`
}

func nodeVo(name string, m stat.Metrics, now int64) nodeVO {
	return nodeVO{
		Resource:           name,
		ThreadNum:          m.Threads,
		PassQPS:            int64(m.PassQPS),
		BlockQPS:           int64(m.BlockQPS),
		TotalQPS:           int64(m.PassQPS + m.BlockQPS),
		AverageRT:          int64(m.AvgRT),
		SuccessQPS:         int64(m.SuccessQPS),
		ExceptionQPS:       int64(m.ExceptionQPS),
		OneMinutePass:      m.MinutePass,
		OneMinuteBlock:     m.MinuteBlock,
		OneMinuteException: m.MinuteException,
		OneMinuteTotal:     m.MinutePass + m.MinuteBlock,
		Timestamp:          now,
	}
}

// jsonTree is Java's FetchJsonTreeCommandHandler: the invocation tree in
// preorder from machine-root, each node with a random id and its parent's
// id, which is how the dashboard rebuilds the tree. Resource nodes inside a
// context keep a second of statistics here, not a minute, so their
// oneMinute figures are 0; the cluster nodes (clusterNode) have them.
func jsonTree(params) (string, error) {
	now := runtime.NowMillis()
	var out []nodeVO
	var visit func(t runtime.TreeNode, parent string, depth int)
	visit = func(t runtime.TreeNode, parent string, depth int) {
		vo := nodeVo(t.Name, t.Metrics, now)
		vo.ID, vo.ParentID = newID(), parent
		out = append(out, vo)
		if depth >= maxTreeDepth {
			return
		}
		for _, c := range t.Children {
			visit(c, vo.ID, depth+1)
		}
	}
	root := runtime.Tree()
	root.Name = RootName
	visit(root, "", 0)
	return toJSON(out)
}

// maxTreeDepth bounds the walks of the tree; runtime.Tree is bounded the
// same way.
const maxTreeDepth = 66

// clusterNodes is Java's FetchSimpleClusterNodeCommandHandler: every
// resource's statistics across contexts; type=notZero leaves out those
// without a call in the last minute.
func clusterNodes(p params) (string, error) {
	notZero := strings.EqualFold(p["type"], "notZero")
	now := runtime.NowMillis()
	out := []nodeVO{}
	for _, r := range runtime.Resources() {
		cn := r.ClusterNode()
		if cn == nil {
			continue
		}
		vo := nodeVo(r.Name(), cn.Metrics(now), now)
		if notZero && vo.OneMinuteTotal <= 0 {
			continue
		}
		out = append(out, vo)
	}
	return toJSON(out)
}

// clusterNodeByID is Java's FetchClusterNodeByIdCommandHandler: {} for an
// unknown resource.
func clusterNodeByID(p params) (string, error) {
	id := p["id"]
	if id == "" {
		return "", errEmptyID
	}
	r := runtime.LookupResource(id)
	if r == nil || r.ClusterNode() == nil {
		return "{}", nil
	}
	now := runtime.NowMillis()
	return toJSON(nodeVo(id, r.ClusterNode().Metrics(now), now))
}

// systemStatus is Java's FetchSystemStatusCommandHandler: the inbound
// node's figures.
func systemStatus(params) (string, error) {
	now := runtime.NowMillis()
	in := runtime.InboundNode()
	return "{" +
		`"rqps":` + javaDouble(in.SuccessQPS(now)) +
		`,"qps":` + javaDouble(in.PassQPS(now)) +
		`,"b":` + javaDouble(in.BlockQPS(now)) +
		`,"r":` + javaDouble(in.AvgRT(now)) +
		`,"t":` + strconv.FormatInt(in.Threads(), 10) + "}", nil
}

// newID is a random version 4 UUID, as Java's NodeVo ids.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// javaDouble formats v as Java's Double.toString does: 5.0, 0.25,
// 1.0E7.
func javaDouble(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0.0"
	}
	if v == 0 {
		return "0.0"
	}
	if a := math.Abs(v); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(exp, "+-0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}
