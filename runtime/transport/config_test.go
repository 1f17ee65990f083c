package transport_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

func TestStartRefusesIncompleteConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  transport.Config
		want string
	}{
		{"no app", transport.Config{Addr: "127.0.0.1:0"}, "Config.App is empty"},
		{"no addr", transport.Config{App: "a"}, "Config.Addr is empty"},
		{"no host", transport.Config{App: "a", Addr: ":8719"}, "has no host"},
		{"not host:port", transport.Config{App: "a", Addr: "8719"}, "Config.Addr"},
		{"bad client ip", transport.Config{App: "a", Addr: "127.0.0.1:0", ClientIP: "my-host"}, "not an IP address"},
		{"no usable dashboard", transport.Config{App: "a", Addr: "127.0.0.1:0", Dashboard: ":8080, host:99999"}, "no usable dashboard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := transport.Start(context.Background(), tt.cfg)
			require.Error(t, err)
			assert.Nil(t, srv)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestStartStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := transport.Start(ctx, transport.Config{App: "ctx", Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	addr := srv.Addr().String()
	cancel()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err != nil
	}, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, srv.Close())
	require.NoError(t, srv.Close(), "idempotent")
}

// Java's TransportConfig.getConsoleServerList.
func TestParseDashboards(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		bad  bool
	}{
		{"", nil, false},
		{"localhost:8080", []string{"http://localhost:8080"}, false},
		{"dash", []string{"http://dash:80"}, false},
		{"https://dash", []string{"https://dash:443"}, false},
		{" http://a:8080 ,, https://b:8443,", []string{"http://a:8080", "https://b:8443"}, false},
		{"[::1]:8080", []string{"http://[::1]:8080"}, false},
		{":8080,a:1,a:65535,a:x,b:9090", []string{"http://b:9090"}, true},
	}
	for _, tt := range tests {
		eps, err := transport.ParseDashboards(tt.in)
		var got []string
		for _, e := range eps {
			got = append(got, e.String())
		}
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, tt.bad, err != nil, "%q: %v", tt.in, err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv(transport.EnvApp, "orders")
	t.Setenv(transport.EnvDashboard, "dash:8080")
	t.Setenv(transport.EnvAPIPort, "8719")
	t.Setenv(transport.EnvHeartbeatInterval, "2500")
	t.Setenv(transport.EnvClientIP, "")
	t.Setenv(transport.EnvLogDir, "")
	c, err := transport.ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "orders", c.App)
	assert.Equal(t, "dash:8080", c.Dashboard)
	assert.Equal(t, "127.0.0.1:8719", c.Addr, "a bare port listens on loopback, never on every interface")
	assert.Equal(t, 2500*time.Millisecond, c.HeartbeatInterval)
	assert.Nil(t, c.MetricLog)

	t.Setenv(transport.EnvClientIP, "10.1.2.3")
	t.Setenv(transport.EnvLogDir, "/var/log/csp")
	t.Setenv(transport.EnvMetricFileCount, "3")
	c, err = transport.ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "10.1.2.3:8719", c.Addr, "the advertised address")
	require.NotNil(t, c.MetricLog)
	assert.Equal(t, "/var/log/csp", c.MetricLog.Dir)
	assert.Equal(t, 3, c.MetricLog.MaxFiles)

	t.Setenv(transport.EnvAPIPort, "0.0.0.0:8720")
	c, err = transport.ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "0.0.0.0:8720", c.Addr)

	for env, val := range map[string]string{
		transport.EnvAPIPort:           "port",
		transport.EnvHeartbeatInterval: "-5",
		transport.EnvAppType:           "gateway",
		transport.EnvMetricFileSize:    "big",
	} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, val)
			_, err := transport.ConfigFromEnv()
			require.Error(t, err)
			assert.Contains(t, err.Error(), env)
		})
	}
}

func TestClusterMode(t *testing.T) {
	off := start(t, transport.Config{})
	_, body := get(t, off, "getClusterMode", nil)
	assert.JSONEq(t, `{"mode":-1,"lastModified":-1,"clientAvailable":false,"serverAvailable":false}`, body)
	code, _ := get(t, off, "cluster/client/fetchConfig", nil)
	assert.Equal(t, 400, code)

	on := start(t, transport.Config{Cluster: func() transport.ClusterState {
		return transport.ClusterState{Redis: "redis.internal:6380", RequestTimeoutMs: 50}
	}})
	_, body = get(t, on, "getClusterMode", nil)
	var st struct {
		Mode            int   `json:"mode"`
		LastModified    int64 `json:"lastModified"`
		ClientAvailable bool  `json:"clientAvailable"`
		ServerAvailable bool  `json:"serverAvailable"`
	}
	require.NoError(t, jsonUnmarshal(body, &st))
	assert.Equal(t, 0, st.Mode, "a token client (ClusterStateManager.CLUSTER_CLIENT)")
	assert.True(t, st.ClientAvailable, "so the cluster page fetches the client config")
	assert.False(t, st.ServerAvailable)
	assert.Positive(t, st.LastModified)
	_, body = get(t, on, "cluster/client/fetchConfig", nil)
	assert.JSONEq(t, `{"serverHost":"redis.internal","serverPort":6380,"clientState":2,"requestTimeout":50}`, body)

	code, body = get(t, on, "setClusterMode", nil)
	assert.Equal(t, 400, code)
	assert.Contains(t, body, "Redis settings")
}
