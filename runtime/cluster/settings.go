package cluster

import (
	"crypto/tls"
	"fmt"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Settings is the client's configuration as a rule file writes it: the
// "cluster" section of a combined document, an array of at most one
// object (an empty array turns cluster checking off):
//
//	"cluster": [{"addr": "redis.internal:6379", "passwordEnv": "REDIS_PASSWORD",
//	             "tls": true, "keyPrefix": "orders:", "timeoutMs": 50}]
//
// Every field but addr is optional, with Config's defaults. A combined
// data source reads it when given the kind:
//
//	kind := datasource.NewKind("cluster", cluster.SettingsProperty(),
//		cluster.ValidateSettings, cluster.LoadedSettings)
//	combined := datasource.NewCombined(datasource.Flow, datasource.ParamFlow, kind)
type Settings struct {
	Addr string `json:"addr,omitempty"`
	// Addrs and MasterName are Config's: a Redis Cluster's seed nodes, or
	// with masterName the Sentinels.
	Addrs      []string `json:"addrs,omitempty"`
	MasterName string   `json:"masterName,omitempty"`
	// Leases is Config.Leases.
	Leases   bool   `json:"leases,omitempty"`
	Username string `json:"username,omitempty"`
	// Password in the file is allowed but discouraged; PasswordEnv names
	// the environment variable that holds it instead, and wins when set.
	Password    string `json:"password,omitempty"`
	PasswordEnv string `json:"passwordEnv,omitempty"`
	DB          int    `json:"db,omitempty"`
	// TLS connects over TLS, verifying the server's certificate against
	// the system roots, for TLSServerName (by default Addr's host).
	TLS           bool   `json:"tls,omitempty"`
	TLSServerName string `json:"tlsServerName,omitempty"`
	KeyPrefix     string `json:"keyPrefix,omitempty"`
	InstanceID    string `json:"instanceId,omitempty"`
	// Durations in milliseconds, as Config's.
	TimeoutMs           int64 `json:"timeoutMs,omitempty"`
	HeartbeatIntervalMs int64 `json:"heartbeatIntervalMs,omitempty"`
	InstanceTTLMs       int64 `json:"instanceTtlMs,omitempty"`
	BreakerFailures     int   `json:"breakerFailures,omitempty"`
	BreakerCooldownMs   int64 `json:"breakerCooldownMs,omitempty"`
}

// Config is the Config s describes.
func (s Settings) Config() Config {
	c := Config{
		Addr: s.Addr, Addrs: s.Addrs, MasterName: s.MasterName, Leases: s.Leases,
		Username: s.Username, Password: s.Password, DB: s.DB,
		KeyPrefix: s.KeyPrefix, InstanceID: s.InstanceID,
		Timeout:           time.Duration(s.TimeoutMs) * time.Millisecond,
		HeartbeatInterval: time.Duration(s.HeartbeatIntervalMs) * time.Millisecond,
		InstanceTTL:       time.Duration(s.InstanceTTLMs) * time.Millisecond,
		BreakerFailures:   s.BreakerFailures,
		BreakerCooldown:   time.Duration(s.BreakerCooldownMs) * time.Millisecond,
	}
	if s.PasswordEnv != "" {
		c.Password = os.Getenv(s.PasswordEnv)
	}
	if s.TLS {
		c.TLS = &tls.Config{ServerName: s.TLSServerName, MinVersion: tls.VersionTLS12}
	}
	return c
}

// ValidateSettings checks settings as LoadSettings would, loading
// nothing: at most one entry, an addr, no negative numbers, and a
// passwordEnv that is set in the environment.
func ValidateSettings(settings []Settings) error {
	var errs runtime.RuleErrors
	bad := func(i int, field, format string, args ...any) {
		errs = append(errs, &runtime.RuleError{Index: i, Resource: "cluster", Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	if len(settings) > 1 {
		bad(1, "", "is a second cluster setting; there is one Redis per process, give at most one")
	}
	for i, s := range settings {
		if s.Addr == "" && len(s.Addrs) == 0 {
			bad(i, "addr", "is missing; want Redis's host:port (or addrs: a Redis Cluster's nodes, or with masterName the Sentinels)")
		}
		if s.MasterName != "" && len(s.Addrs) == 0 {
			bad(i, "addrs", "is missing; masterName %q needs the Sentinels' host:port", s.MasterName)
		}
		if s.PasswordEnv != "" {
			if _, ok := os.LookupEnv(s.PasswordEnv); !ok {
				bad(i, "passwordEnv", "names %q, which is not set in the environment", s.PasswordEnv)
			}
		}
		for _, f := range []struct {
			name string
			v    int64
		}{
			{"db", int64(s.DB)}, {"timeoutMs", s.TimeoutMs}, {"heartbeatIntervalMs", s.HeartbeatIntervalMs},
			{"instanceTtlMs", s.InstanceTTLMs}, {"breakerFailures", int64(s.BreakerFailures)}, {"breakerCooldownMs", s.BreakerCooldownMs},
		} {
			if f.v < 0 {
				bad(i, f.name, "%d is negative; want 0 (the default) or more", f.v)
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

var (
	settingsMu     sync.Mutex
	settingsLoaded []Settings
	fileClient     *Client
	settingsProp   = runtime.NewProperty(LoadSettings)
)

// LoadSettings puts settings in force: with one entry, a client for it is
// made and installed (replacing, and closing, the one earlier settings
// made; loading equal settings again changes nothing); with none, the
// client the settings made is uninstalled and closed, and cluster rules
// are checked locally again. A client made from code (New, Install) is
// replaced by the file's while the file has settings.
func LoadSettings(settings []Settings) error {
	if err := ValidateSettings(settings); err != nil {
		return err
	}
	settingsMu.Lock()
	defer settingsMu.Unlock()
	if reflect.DeepEqual(settings, settingsLoaded) || (len(settings) == 0 && len(settingsLoaded) == 0) {
		return nil
	}
	old := fileClient
	fileClient = nil
	if len(settings) == 1 {
		c, err := New(settings[0].Config())
		if err != nil {
			return err
		}
		c.Install()
		fileClient = c
	} else if old != nil {
		Uninstall()
	}
	if old != nil {
		_ = old.Close()
	}
	settingsLoaded = append([]Settings(nil), settings...)
	return nil
}

// LoadedSettings returns the settings in force, without any password
// (rules in force are written back to files and dashboards; use
// passwordEnv).
func LoadedSettings() []Settings {
	settingsMu.Lock()
	defer settingsMu.Unlock()
	out := append([]Settings(nil), settingsLoaded...)
	for i := range out {
		out[i].Password = ""
	}
	return out
}

// SettingsProperty is the settings' runtime.Property, for data sources.
func SettingsProperty() *runtime.Property[[]Settings] { return settingsProp }
