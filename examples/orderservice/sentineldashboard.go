package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// sentinelDashboard is how the service registers with a Java
// sentinel-dashboard, a server of its own and not the built-in page at
// /sentinel/: flags, or Java's environment variables (PROJECT_NAME,
// CSP_SENTINEL_DASHBOARD_SERVER, CSP_SENTINEL_API_PORT, ...) which the
// flags override.
type sentinelDashboard struct {
	dashboard string
	api       string
	app       string
}

func addDashboardFlags(flags *flag.FlagSet) *sentinelDashboard {
	d := &sentinelDashboard{}
	flags.StringVar(&d.dashboard, "java-dashboard", "", "a Java sentinel-dashboard server to register with, host:port (comma-separated for several);\nnot the built-in page, which is always at /sentinel/")
	// The flag's old name, which read as if it turned the built-in page on.
	flags.Func("dashboard", "deprecated: use -java-dashboard", func(v string) error {
		fmt.Fprintln(flags.Output(), "orderservice: -dashboard is deprecated: use -java-dashboard (a Java sentinel-dashboard server; the built-in page is always at /sentinel/)")
		d.dashboard = v
		return nil
	})
	flags.StringVar(&d.api, "sentinel-api", "", "where the Java sentinel-dashboard calls this service's commands, host:port (default 127.0.0.1:8719 with -java-dashboard)")
	flags.StringVar(&d.app, "app", "", "application name in the Java sentinel-dashboard (default orderservice)")
	return d
}

// start runs the command center when a dashboard is configured, writing
// rules set from the dashboard back to the watched rule files in rulesDir.
// It returns a func that stops it.
func (d *sentinelDashboard) start(ctx context.Context, rulesDir string, stdout io.Writer) (func() error, error) {
	cfg, err := transport.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	if d.dashboard != "" {
		cfg.Dashboard = d.dashboard
	}
	if d.api != "" {
		cfg.Addr = d.api
	}
	if d.app != "" {
		cfg.App = d.app
	}
	if cfg.Dashboard == "" && cfg.Addr == "" {
		return func() error { return nil }, nil
	}
	if cfg.App == "" {
		cfg.App = "orderservice"
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8719"
	}
	for _, rf := range ruleFiles {
		cfg.RuleFiles = append(cfg.RuleFiles, dashboard.RuleFile{Kind: rf.kind, Path: filepath.Join(rulesDir, rf.name)})
	}
	srv, err := transport.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "sentinel command center on %s, app %q, Java sentinel-dashboard %q\n", srv.Addr(), cfg.App, cfg.Dashboard)
	return srv.Close, nil
}
