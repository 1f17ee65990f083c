package cluster_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"go.uber.org/goleak"
)

// childEnv makes the test binary a child instance of the end-to-end
// tests (as the standard library's exec tests re-run their own binary):
// its value is a childSpec in JSON.
const childEnv = "SENTINELGEN_CLUSTER_CHILD"

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) // blocks are logged at info
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(runChild(spec))
	}
	// Every client's heartbeat goroutine and connections end with Close.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

// childSpec is one child instance's part in an end-to-end test.
type childSpec struct {
	Addr string
	// SentinelAddr, when set, is a Sentinel watching "mymaster", which
	// the child connects through instead of Addr.
	SentinelAddr string
	Prefix       string
	Rule         flow.Rule
	// Param, when set, is a hot-parameter rule loaded instead of Rule,
	// and every call passes Arg as its argument.
	Param      *paramflow.Rule
	Arg        string
	JoinAt     time.Time // register in the live set
	StartAt    time.Time // start calling
	StopAt     time.Time
	Goroutines int
	// Crash leaves without deregistering, as a killed process would: the
	// instance counts until its registration expires.
	Crash bool
	// Leases turns on leased tokens (Config.Leases).
	Leases bool
	// Rate paces each goroutine to this many calls a second; 0: as fast
	// as it can (2 ms apart after a refusal).
	Rate float64
	// SnapshotAt are times at which the client's Stats are taken too.
	SnapshotAt []time.Time
}

// childReport is what a child prints: when each admitted call was
// admitted (unix ms), and the cluster client's counters.
type childReport struct {
	Admitted  []int64
	Started   []int64 // when each admitted call began (unix ms), before Entry
	Blocked   int64
	BlockedAt []int64 // when each refused call was refused (unix ms)
	Stats     cluster.Stats
	Snapshots []cluster.Stats // at SnapshotAt
}

func runChild(specJSON string) int {
	var spec childSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		os.Stderr.WriteString("child: bad spec: " + err.Error() + "\n")
		return 2
	}
	time.Sleep(time.Until(spec.JoinAt))
	cfg := cluster.Config{
		Addr: spec.Addr, KeyPrefix: spec.Prefix,
		HeartbeatInterval: 200 * time.Millisecond, InstanceTTL: time.Second,
		Timeout: 500 * time.Millisecond, Leases: spec.Leases,
	}
	if spec.SentinelAddr != "" {
		cfg.Addr, cfg.Addrs, cfg.MasterName = "", []string{spec.SentinelAddr}, "mymaster"
	}
	c, err := cluster.New(cfg)
	if err != nil {
		os.Stderr.WriteString("child: " + err.Error() + "\n")
		return 2
	}
	c.Install()
	resource := spec.Rule.Resource
	var loadErr error
	if spec.Param != nil {
		resource = spec.Param.Resource
		loadErr = paramflow.LoadRules([]paramflow.Rule{*spec.Param})
	} else {
		loadErr = flow.LoadRules([]flow.Rule{spec.Rule})
	}
	if loadErr != nil {
		os.Stderr.WriteString("child: " + loadErr.Error() + "\n")
		return 2
	}
	time.Sleep(time.Until(spec.StartAt))

	var (
		mu     sync.Mutex
		report childReport
		wg     sync.WaitGroup
	)
	report.Snapshots = make([]cluster.Stats, len(spec.SnapshotAt))
	wg.Go(func() {
		for i, at := range spec.SnapshotAt {
			time.Sleep(time.Until(at))
			report.Snapshots[i] = c.Stats() // read after wg.Wait
		}
	})
	for range spec.Goroutines {
		wg.Go(func() {
			var admitted, started, blockedAt []int64
			var blocked int64
			next := spec.StartAt
			for time.Now().Before(spec.StopAt) {
				if spec.Rate > 0 {
					next = next.Add(time.Duration(float64(time.Second) / spec.Rate))
					time.Sleep(time.Until(next))
				}
				began := time.Now().UnixMilli()
				e, b := runtime.Entry(context.Background(), resource, runtime.WithArgs(spec.Arg))
				if b != nil {
					blocked++
					blockedAt = append(blockedAt, time.Now().UnixMilli())
					if spec.Rate == 0 {
						time.Sleep(2 * time.Millisecond) // spare the two shared cores
					}
					continue
				}
				admitted = append(admitted, time.Now().UnixMilli())
				started = append(started, began)
				e.Exit()
			}
			mu.Lock()
			report.Admitted = append(report.Admitted, admitted...)
			report.Started = append(report.Started, started...)
			report.Blocked += blocked
			report.BlockedAt = append(report.BlockedAt, blockedAt...)
			mu.Unlock()
		})
	}
	wg.Wait()
	report.Stats = c.Stats()
	if err := json.NewEncoder(os.Stdout).Encode(report); err != nil {
		return 2
	}
	if spec.Crash {
		return 0 // no Close: the registration stays until it expires
	}
	cluster.Uninstall()
	_ = c.Close()
	return 0
}
