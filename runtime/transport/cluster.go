package transport

import (
	"errors"
	"net"
	"strconv"

	"github.com/sentinelgen/sentinelgen/runtime/cluster"
)

// ClusterState is how cluster rules are counted, as the dashboard's
// cluster page shows it.
type ClusterState struct {
	// Redis is the host:port of the Redis that counts cluster rules, ""
	// when they are checked locally.
	Redis string
	// RequestTimeout caps a cluster check, in milliseconds; 0 when there
	// is no cap.
	RequestTimeoutMs int64
}

// clusterFromSettings reads the cluster settings loaded from a rule file.
func clusterFromSettings() ClusterState {
	s := cluster.LoadedSettings()
	if len(s) == 0 {
		return ClusterState{}
	}
	return ClusterState{Redis: s[0].Addr, RequestTimeoutMs: s[0].TimeoutMs}
}

// Java's ClusterStateManager modes and ClusterClientStatus.
const (
	clusterNotStarted = -1
	clusterClient     = 0
	clientStarted     = 2
)

// getClusterMode is Java's FetchClusterModeCommandHandler. Counting in
// Redis is shown as token-client mode (0) with a client available, whose
// token server (cluster/client/fetchConfig) is the Redis address; local
// checking is mode -1 (not started) with neither client nor server, which
// the cluster page shows as such.
func (s *Server) getClusterMode(params) (string, error) {
	type state struct {
		Mode            int   `json:"mode"`
		LastModified    int64 `json:"lastModified"`
		ClientAvailable bool  `json:"clientAvailable"`
		ServerAvailable bool  `json:"serverAvailable"`
	}
	if s.cfg.Cluster().Redis == "" {
		return toJSON(state{Mode: clusterNotStarted, LastModified: -1})
	}
	return toJSON(state{Mode: clusterClient, LastModified: s.started, ClientAvailable: true})
}

// clusterClientConfig is the token client's configuration as the
// dashboard's ClusterClientInfoVO reads it: the Redis address as the
// token server.
func (s *Server) clusterClientConfig(params) (string, error) {
	cs := s.cfg.Cluster()
	if cs.Redis == "" {
		return "", errors.New("cluster mode is off: cluster rules are checked locally")
	}
	host, port, err := net.SplitHostPort(cs.Redis)
	if err != nil {
		host, port = cs.Redis, "6379"
	}
	p, _ := strconv.Atoi(port)
	return toJSON(struct {
		ServerHost     string `json:"serverHost"`
		ServerPort     int    `json:"serverPort"`
		ClientState    int    `json:"clientState"`
		RequestTimeout int64  `json:"requestTimeout"`
	}{host, p, clientStarted, cs.RequestTimeoutMs})
}

// setClusterMode refuses: cluster mode follows the service's Redis
// settings, and there is no token server to become.
func (s *Server) setClusterMode(params) (string, error) {
	return "", errors.New("cluster mode is set by the service's Redis settings (runtime/cluster), not from the dashboard")
}
