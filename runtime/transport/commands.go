package transport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// command is one of the dashboard's commands: Java's CommandHandler with
// its @CommandMapping name and description.
type command struct {
	name, desc string
	json       bool // the result is JSON
	run        func(p params) (string, error)
}

// commandTable is every command the center answers, by name.
func (s *Server) commandTable() map[string]command {
	cmds := []command{
		{name: "version", desc: "get sentinel version", run: func(params) (string, error) { return Version, nil }},
		{name: "api", desc: "get all available command handlers", json: true, run: s.api},
		{name: "basicInfo", desc: "get sentinel config info", run: s.basicInfo},
		{name: "getSwitch", desc: "get sentinel switch status", run: getSwitch},
		{name: "setSwitch", desc: "set sentinel switch, accept param: value={true|false}", run: setSwitch},
		{name: "jsonTree", desc: "get tree node VO start from root node", json: true, run: jsonTree},
		{name: "tree", desc: "get metrics in tree mode, use id to specify detailed tree root", run: textTree},
		{name: "clusterNode", desc: "get all clusterNode VO, use type=notZero to ignore those nodes with totalRequest <=0", json: true, run: clusterNodes},
		{name: "clusterNodeById", desc: "get clusterNode VO by id, request param: id={resourceName}", json: true, run: clusterNodeByID},
		{name: "cnode", desc: "get clusterNode metrics by id, request param: id={resourceName}", run: cnode},
		{name: "origin", desc: "get origin clusterNode by id, request param: id={resourceName}", run: origins},
		{name: "systemStatus", desc: "get system status", json: true, run: systemStatus},
		{name: "getRules", desc: "get all active rules by type, request param: type={ruleType}", json: true, run: getRules},
		{name: "setRules", desc: "modify the rules, accept param: type={ruleType}&data={ruleJson}", run: s.setRules},
		{name: "getParamFlowRules", desc: "Get all parameter flow rules", json: true, run: getParamFlowRules},
		{name: "setParamFlowRules", desc: "Set parameter flow rules, while previous rules will be replaced.", run: s.setParamFlowRules},
		{name: "metric", desc: "get and aggregate metrics, accept param: startTime={startTime}&endTime={endTime}&maxLines={maxLines}&identify={resourceName}", run: metric},
		{name: "getClusterMode", desc: "get cluster mode status", json: true, run: s.getClusterMode},
		{name: "setClusterMode", desc: "set cluster mode, accept param: mode={0|1} 0:client mode 1:server mode", run: s.setClusterMode},
		{name: "cluster/client/fetchConfig", desc: "get cluster client config", json: true, run: s.clusterClientConfig},
	}
	m := make(map[string]command, len(cmds))
	for _, c := range cmds {
		m[c.name] = c
	}
	return m
}

// api lists the commands as Java's ApiCommandHandler: [{"url": "/name",
// "desc": "..."}], here sorted by name.
func (s *Server) api(params) (string, error) {
	type entry struct {
		URL  string `json:"url"`
		Desc string `json:"desc"`
	}
	names := make([]string, 0, len(s.commands))
	for n := range s.commands {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]entry, len(names))
	for i, n := range names {
		out[i] = entry{URL: "/" + n, Desc: s.commands[n].desc}
	}
	return toJSON(out)
}

// basicInfo is Java's HostNameUtil.getConfigString.
func (s *Server) basicInfo(params) (string, error) {
	host, _ := json.Marshal(s.cfg.Hostname)
	ip, _ := json.Marshal(s.clientIP)
	return "{\n\t\"machine\": " + string(host) + ",\n\t\"ip\": " + string(ip) + "\n}", nil
}

func getSwitch(params) (string, error) {
	return "Sentinel switch value: " + boolString(runtime.Enabled()), nil
}

// setSwitch is Java's OnOffSetCommandHandler, except that a value other
// than true or false (any case) is refused and changes nothing, where
// Java's Boolean.valueOf turns Sentinel off.
func setSwitch(p params) (string, error) {
	v := strings.TrimSpace(p["value"])
	switch strings.ToLower(v) {
	case "true":
		runtime.SetEnabled(true)
	case "false":
		runtime.SetEnabled(false)
	default:
		return "", fmt.Errorf("bad value %q: want value=true or value=false", printable(v))
	}
	return "Sentinel set switch value: " + strings.ToLower(v), nil
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// toJSON encodes v without HTML escapes ("&" stays "&"), as fastjson
// writes.
func toJSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
