// Package transport speaks Java Sentinel's transport protocol
// (sentinel-transport-simple-http), so that a Go service registers with a
// running sentinel-dashboard, shows its live QPS there beside the Java
// services, and takes its rules from it.
//
//	srv, err := transport.Start(ctx, transport.Config{
//		App:       "orders",
//		Addr:      "10.0.0.7:8719",      // the command center; never defaulted to every interface
//		Dashboard: "sentinel-dashboard:8080",
//		RuleFiles: []dashboard.RuleFile{{Kind: datasource.Flow, Path: "rules/flow.json"}},
//	})
//	if err != nil { ... }
//	defer srv.Close()
//
// ConfigFromEnv reads the same settings from Java's property names in the
// environment (PROJECT_NAME, CSP_SENTINEL_DASHBOARD_SERVER,
// CSP_SENTINEL_API_PORT, CSP_SENTINEL_HEARTBEAT_INTERVAL_MS, ...).
//
// # Heartbeats
//
// Every HeartbeatInterval (10 s by default) the service POSTs a form to
// each dashboard's /registry/machine with app, app_type, hostname, ip,
// port (the command center's), v (Version) and version (the time in ms),
// which is what the dashboard's MachineRegistryController reads. A
// dashboard that is down or refuses the machine is logged once when the
// outage starts and once when it ends; heartbeats never block anything.
//
// # Commands
//
// The dashboard calls the command center at http://ip:port/<command>,
// with parameters in the query string or, for POST, a form body. A
// command's result is 200 with a plain body; a refusal is 400 with the
// reason; an unknown command is 400 "Unknown command `name`", as in Java.
//
//	version, api, basicInfo                Sentinel version, the command list, host and ip
//	jsonTree, tree                         the invocation tree (Java's NodeVo JSON, or text)
//	clusterNode, clusterNodeById, cnode    each resource across contexts (Java's NodeVo JSON, or text)
//	origin                                 a resource's callers (text)
//	systemStatus                           inbound QPS, RT and threads
//	getRules, setRules                     type=flow|degrade|system|authority|adaptive; data=JSON array (adaptive: this runtime's own kind)
//	getParamFlowRules, setParamFlowRules   hot-parameter rules
//	metric                                 per-second counts (MetricNode lines)
//	getSwitch, setSwitch                   the global switch (runtime.SetEnabled)
//	getClusterMode, setClusterMode,        cluster mode: off, or a token client of Redis
//	cluster/client/fetchConfig
//
// The metric command answers from the per-second history that the runtime
// keeps on each resource, the 60 whole seconds before the current one
// (Java reads its metric log): the dashboard fetches a few seconds at a
// time, every second, from at most 15 s back, so a minute is ample. Lines are Java's MetricNode.toThinString:
//
//	timestamp|resource|pass|block|success|exception|rt|occupiedPass|concurrency|classification
//
// # Rules from the dashboard
//
// setRules and setParamFlowRules go through the rule packages' validation,
// as a rule file does: the document is loaded all or nothing, and a
// refused one is answered 400 with the same message a file would log, the
// rules in force unchanged. Loaded rules are written back through the
// kind's dashboard.RuleFile (or a combined one) in Config.RuleFiles,
// Java's WritableDataSourceRegistry: a file source then reads back what is
// already in force, and the rules survive a restart. A failed write
// answers Java's "partial success (write data source failed)".
//
// # Bounded input
//
// Bodies are capped (MaxBodyBytes, 16 MiB; a larger Content-Length is
// refused unread), as are parameters (64 a request), header bytes
// (64 KiB), time to read a request (3 s for the header, 10 s in all),
// commands in flight and POST bodies being read (MaxConcurrent each, then
// 503). A body is read before its command takes a slot, so clients that
// trickle bodies can keep other POSTs waiting but never a GET command:
// version, metric and the rest answer. A bad URL escape or a value that
// is not UTF-8 is refused with 400 before any command runs. Heartbeats
// never follow a redirect (a 3xx is a failed heartbeat), so a dashboard
// address cannot send the application's identity elsewhere.
//
// # The metric log
//
// With Config.MetricLog the service also writes Java's
// <app>-metrics.log.<date> with its index files, rolled by size and count
// (see MetricLogConfig), for tools that read it.
//
// # Where this differs from Java
//
//   - Addr must be given; Java listens on every interface at 8719, or the
//     next free port.
//   - Heartbeats go to every dashboard listed; Java's simple-http sender
//     only uses the first.
//   - setSwitch takes only true or false; Java turns Sentinel off for any
//     other value.
//   - setRules with a refused document changes nothing and says why; Java
//     loads what fastjson makes of it. The data parameter is decoded once
//     (a second time only when it is still encoded); Java decodes it
//     twice, which turns '+' in a resource name into a space.
//   - Resource nodes in jsonTree and origins in origin keep a second of
//     statistics here, so their one-minute figures are 0; clusterNode,
//     cnode and metric have the minute.
//   - Cluster mode cannot be changed from the dashboard: it follows the
//     service's Redis settings (runtime/cluster).
//
// The command center has no authentication, as Java's: listen on an
// interface only the dashboard reaches. Requests a browser sends for a web
// page (marked with Origin, or Sec-Fetch-Site other than "none") are
// refused with 403, so a page the operator visits cannot drive a command
// center on loopback; the dashboard's HTTP client sends neither header.
// A request whose Host is not one the command center is reached by is
// refused with 403 too, so that a page whose name was made to resolve to
// the machine (DNS rebinding), in a browser that sends no Fetch-Metadata
// headers, cannot either. Allowed: the loopback names (localhost,
// *.localhost, 127.0.0.0/8, ::1), Addr's host, ClientIP, the address the
// request arrived on, and Config.AllowedHosts. The dashboard calls
// ip:port and curl sends Host: 127.0.0.1:port, both allowed.
package transport
