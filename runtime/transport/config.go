package transport

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
)

// DefaultHeartbeatInterval is Java's SimpleHttpHeartbeatSender interval.
const DefaultHeartbeatInterval = 10 * time.Second

// DefaultHeartbeatPath is Java's csp.sentinel.heartbeat.api.path default,
// the dashboard's MachineRegistryController.
const DefaultHeartbeatPath = "/registry/machine"

// Version is what the service reports as its Sentinel version (the
// heartbeat's v, the version command). The dashboard reads it as 1.8.9
// with the postfix "go": from 1.6.0 it sends rules by POST, from 1.7.1
// with a charset in the content type, both of which the command center
// takes.
const Version = "1.8.9-go"

// Config is how the command center listens and whom it reports to. App
// and Addr are required; zero values of the rest take the defaults named.
type Config struct {
	// App is the application name the dashboard groups machines by
	// (Java's project.name). Required.
	App string
	// Addr is the command center's listen address, host:port (Java's
	// csp.sentinel.api.port, 8719 there). Required, with a host: the
	// commands change rules, so the center never listens on every
	// interface by accident. An explicit 0.0.0.0 or [::] is taken as
	// meant. Port 0 picks a free port; Server.Addr says which.
	Addr string
	// Dashboard is where heartbeats go, read as Java reads
	// csp.sentinel.dashboard.server: comma-separated host:port entries,
	// each optionally prefixed http:// or https:// (port 80 or 443 when
	// left out). Malformed entries are skipped with a warning, as Java
	// skips them. Empty: no heartbeats; the commands still answer.
	Dashboard string
	// HeartbeatInterval is the time between heartbeats; 10 s by default
	// (Java's csp.sentinel.heartbeat.interval.ms).
	HeartbeatInterval time.Duration
	// HeartbeatPath is the dashboard's registry path; /registry/machine
	// by default (Java's csp.sentinel.heartbeat.api.path).
	HeartbeatPath string
	// ClientIP is the address the dashboard is told to call back (Java's
	// csp.sentinel.heartbeat.client.ip). By default Addr's host, or, when
	// Addr's host is unspecified, the first non-loopback address of the
	// machine.
	ClientIP string
	// Hostname is reported with each heartbeat; os.Hostname by default.
	Hostname string
	// AppType is Java's csp.sentinel.app.type (0 common, 1 API gateway).
	AppType int
	// HTTPClient sends heartbeats; by default a client with Java's 3 s
	// timeout. Give one with a TLS configuration for https dashboards
	// with a private CA. Heartbeats never follow a redirect, whatever
	// the client's CheckRedirect: the form names the application and
	// where its command center listens, so it goes to the dashboards
	// configured and nowhere a dashboard (or whoever answers for it)
	// points; a 3xx answer is a failed heartbeat.
	HTTPClient *http.Client
	// AllowedHosts are the names (or IPs) the command center is reached
	// by, besides those it always answers: the loopback names
	// (localhost, *.localhost, 127.0.0.0/8, ::1), Addr's host, ClientIP
	// and the address a request arrived on. A request with another Host
	// is refused with 403, so that a page whose name was made to resolve
	// to this machine (DNS rebinding) cannot drive the commands from the
	// operator's browser. The dashboard calls ip:port, which is allowed.
	AllowedHosts []string

	// RuleFiles are where rules set from the dashboard are written back,
	// so they survive a restart (Java's WritableDataSourceRegistry): the
	// entry whose Kind is the set kind, else a combined one. Without one
	// the rules are loaded and live in memory only, as in Java without a
	// writable data source. See dashboard.RuleFile; a data source that
	// keeps rules elsewhere (etcd, Redis) gives its Save.
	RuleFiles []dashboard.RuleFile
	// MetricLog, when set, also writes Java's metric log (see MetricLogConfig).
	MetricLog *MetricLogConfig
	// Cluster reports how cluster rules are counted, for the dashboard's
	// cluster page. By default it reads the "cluster" settings loaded from
	// a rule file (runtime/cluster); give it when the cluster client is
	// made in code.
	Cluster func() ClusterState
	// MaxBodyBytes bounds a request body; 16 MiB by default (a 4 MiB rule
	// document, form-encoded).
	MaxBodyBytes int64
	// MaxConcurrent bounds the commands served at once (Java's command
	// executor has one thread per processor and a queue of ten), and
	// apart from them the POST bodies being read; past either a request
	// is answered 503. A body is read before its command takes a slot,
	// within the 10 s a request has to arrive, so clients that trickle
	// bodies delay no command (version, metric, the GET commands) but
	// POSTs. 16 by default.
	MaxConcurrent int
}

func (c Config) withDefaults() Config {
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if c.HeartbeatPath == "" {
		c.HeartbeatPath = DefaultHeartbeatPath
	} else if !strings.HasPrefix(c.HeartbeatPath, "/") {
		c.HeartbeatPath = "/" + c.HeartbeatPath
	}
	if c.Hostname == "" {
		c.Hostname, _ = os.Hostname()
	}
	if len(c.Hostname) > 256 {
		c.Hostname = c.Hostname[:256] // the dashboard refuses longer ones
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 3 * time.Second}
	}
	hc := *c.HTTPClient // the caller's client keeps its own policy
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.HTTPClient = &hc
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 16 << 20
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = 16
	}
	if c.Cluster == nil {
		c.Cluster = clusterFromSettings
	}
	return c
}

// validate checks what Start cannot do without.
func (c Config) validate() error {
	if strings.TrimSpace(c.App) == "" {
		return errors.New("transport: Config.App is empty (Java's project.name)")
	}
	if len(c.App) > 256 {
		return errors.New("transport: Config.App is longer than the dashboard's 256 characters")
	}
	if c.Addr == "" {
		return errors.New("transport: Config.Addr is empty: give the command center's host:port, such as 127.0.0.1:8719")
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("transport: Config.Addr %q: %w", c.Addr, err)
	}
	if host == "" {
		return fmt.Errorf("transport: Config.Addr %q has no host; the command center changes rules, so name the interface (127.0.0.1:8719, or 0.0.0.0:8719 for every interface)", c.Addr)
	}
	if c.ClientIP != "" && net.ParseIP(c.ClientIP) == nil {
		return fmt.Errorf("transport: Config.ClientIP %q is not an IP address (the dashboard refuses it)", c.ClientIP)
	}
	return nil
}

// The environment variables ConfigFromEnv reads: Java's property names,
// upper-cased with dots as underscores, as Java's SentinelConfig reads
// them from the environment.
const (
	EnvDashboard         = "CSP_SENTINEL_DASHBOARD_SERVER"
	EnvApp               = "PROJECT_NAME"
	EnvAPIPort           = "CSP_SENTINEL_API_PORT"
	EnvHeartbeatInterval = "CSP_SENTINEL_HEARTBEAT_INTERVAL_MS"
	EnvClientIP          = "CSP_SENTINEL_HEARTBEAT_CLIENT_IP"
	EnvHeartbeatPath     = "CSP_SENTINEL_HEARTBEAT_API_PATH"
	EnvAppType           = "CSP_SENTINEL_APP_TYPE"
	// EnvLogDir turns the metric log on, in that directory (Java's
	// csp.sentinel.log.dir); EnvMetricFileSize and EnvMetricFileCount
	// bound it.
	EnvLogDir          = "CSP_SENTINEL_LOG_DIR"
	EnvMetricFileSize  = "CSP_SENTINEL_METRIC_FILE_SINGLE_SIZE"
	EnvMetricFileCount = "CSP_SENTINEL_METRIC_FILE_TOTAL_COUNT"
)

// ConfigFromEnv reads a Config from Java's property names in the
// environment, for deployments that configure Java services that way:
//
//	PROJECT_NAME=orders CSP_SENTINEL_DASHBOARD_SERVER=dashboard:8080 \
//	CSP_SENTINEL_API_PORT=8719 CSP_SENTINEL_HEARTBEAT_CLIENT_IP=10.0.0.7 ./orders
//
// CSP_SENTINEL_API_PORT is a port, as in Java, or a host:port. A bare port
// listens on CSP_SENTINEL_HEARTBEAT_CLIENT_IP, the address the dashboard
// is told to call, or on 127.0.0.1 when that is unset: never on every
// interface unless 0.0.0.0 is written out. Unset variables leave the
// field zero (its default); a malformed number is an error naming the
// variable.
func ConfigFromEnv() (Config, error) {
	c := Config{
		App:           os.Getenv(EnvApp),
		Dashboard:     os.Getenv(EnvDashboard),
		ClientIP:      strings.TrimSpace(os.Getenv(EnvClientIP)),
		HeartbeatPath: os.Getenv(EnvHeartbeatPath),
	}
	if port := strings.TrimSpace(os.Getenv(EnvAPIPort)); port != "" {
		if _, _, err := net.SplitHostPort(port); err == nil {
			c.Addr = port
		} else {
			n, err := strconv.Atoi(port)
			if err != nil || n < 0 || n > 65535 {
				return Config{}, fmt.Errorf("transport: %s=%q is not a port or host:port", EnvAPIPort, port)
			}
			host := c.ClientIP
			if host == "" {
				host = "127.0.0.1"
			}
			c.Addr = net.JoinHostPort(host, port)
		}
	}
	if v := strings.TrimSpace(os.Getenv(EnvHeartbeatInterval)); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 {
			return Config{}, fmt.Errorf("transport: %s=%q is not a positive number of milliseconds", EnvHeartbeatInterval, v)
		}
		c.HeartbeatInterval = time.Duration(ms) * time.Millisecond
	}
	if v := strings.TrimSpace(os.Getenv(EnvAppType)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return Config{}, fmt.Errorf("transport: %s=%q is not a number", EnvAppType, v)
		}
		c.AppType = n
	}
	if dir := strings.TrimSpace(os.Getenv(EnvLogDir)); dir != "" {
		ml := &MetricLogConfig{Dir: dir}
		if v := strings.TrimSpace(os.Getenv(EnvMetricFileSize)); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return Config{}, fmt.Errorf("transport: %s=%q is not a positive number of bytes", EnvMetricFileSize, v)
			}
			ml.MaxFileSize = n
		}
		if v := strings.TrimSpace(os.Getenv(EnvMetricFileCount)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return Config{}, fmt.Errorf("transport: %s=%q is not a positive count", EnvMetricFileCount, v)
			}
			ml.MaxFiles = n
		}
		c.MetricLog = ml
	}
	return c, nil
}

// Endpoint is one dashboard address.
type Endpoint struct {
	Scheme string // "http" or "https"
	Host   string
	Port   int
}

func (e Endpoint) String() string {
	return e.Scheme + "://" + net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
}

// parseDashboards reads a dashboard list as Java's
// TransportConfig.getConsoleServerList does: comma-separated entries,
// blanks ignored, each "host[:port]" with an optional http:// or https://
// prefix (port 80 or 443 by default). An entry Java skips (empty host, a
// port outside 2..65534 or not a number) is skipped and named in the
// returned error; the good entries are returned either way. A bracketed
// IPv6 host ("[::1]:8080") is also read.
func parseDashboards(s string) ([]Endpoint, error) {
	var out []Endpoint
	var bad []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		e := Endpoint{Scheme: "http", Port: 80}
		rest := part
		switch {
		case strings.HasPrefix(rest, "http://"):
			rest = rest[len("http://"):]
		case strings.HasPrefix(rest, "https://"):
			rest = rest[len("https://"):]
			e.Scheme, e.Port = "https", 443
		}
		host, port := rest, ""
		if strings.HasPrefix(rest, "[") {
			h, p, err := net.SplitHostPort(rest)
			if err != nil {
				if end := strings.Index(rest, "]"); end > 0 && end == len(rest)-1 {
					h, p = rest[1:end], ""
				} else {
					bad = append(bad, part)
					continue
				}
			}
			host, port = h, p
		} else if i := strings.Index(rest, ":"); i >= 0 {
			host, port = rest[:i], rest[i+1:]
		}
		if host == "" || strings.ContainsAny(host, "/?#@ ") {
			bad = append(bad, part)
			continue
		}
		if port != "" {
			n, err := strconv.Atoi(port)
			if err != nil || n <= 1 || n >= 65535 {
				bad = append(bad, part)
				continue
			}
			e.Port = n
		}
		e.Host = host
		out = append(out, e)
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("transport: dashboard entries skipped (want host:port, optionally http:// or https://): %q", bad)
	}
	return out, nil
}
