package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// ruleKinds are the kinds getRules and setRules take, by Java's type
// names (matched ignoring case, as Java does).
var ruleKinds = map[string]datasource.Kind{
	"flow":      datasource.Flow,
	"degrade":   datasource.Degrade,
	"system":    datasource.System,
	"authority": datasource.Authority,
	"adaptive":  datasource.Adaptive, // no Java counterpart: Java's dashboard never asks for it
}

// Java's answers to a rule update.
const (
	msgSuccess        = "success"
	msgWriteDSFailure = "partial success (write data source failed)"
)

func kindOf(p params) (datasource.Kind, error) {
	k, ok := ruleKinds[strings.ToLower(p["type"])]
	if !ok {
		return nil, errors.New("invalid type")
	}
	return k, nil
}

// getRules answers the rules of a kind in force as a JSON array with
// Java's field names (Java's FetchActiveRuleCommandHandler).
func getRules(p params) (string, error) {
	k, err := kindOf(p)
	if err != nil {
		return "", err
	}
	return encodeRules(k)
}

func getParamFlowRules(params) (string, error) { return encodeRules(datasource.ParamFlow) }

func encodeRules(k datasource.Kind) (string, error) {
	data, err := k.Encode()
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func (s *Server) setRules(p params) (string, error) {
	k, err := kindOf(p)
	if err != nil {
		return "", err
	}
	return s.loadRules(k, p)
}

func (s *Server) setParamFlowRules(p params) (string, error) {
	return s.loadRules(datasource.ParamFlow, p)
}

// loadRules is Java's ModifyRulesCommandHandler: the data parameter is the
// JSON array of the kind's rules. It is decoded, validated and loaded as a
// rule file is, all or nothing: a refused document is answered with the
// reason and changes nothing. A rule keeps the fields the dashboard's rule
// entities do not carry (dryRun; regex of flow and degrade rules) from the
// rule in force it stands for (datasource.KeepUncarried): the dashboard
// cannot show or send them, and must not switch a dry run into enforcing
// nor a regex rule into an exact name. Loaded rules are written back through the
// kind's RuleFile, so they survive a restart; a failed write answers
// Java's "partial success (write data source failed)", the rules being in
// force.
func (s *Server) loadRules(k datasource.Kind, p params) (string, error) {
	data, err := ruleData(p["data"])
	if err != nil {
		return "", err
	}
	// The cap every rule source applies: rules no source could hold again
	// are not put in force from here either.
	if len(data) > datasource.DefaultMaxSize {
		return "", fmt.Errorf("data is %d bytes, over the %d-byte cap of a rule document; nothing changed", len(data), datasource.DefaultMaxSize)
	}
	s.rulesMu.Lock()
	defer s.rulesMu.Unlock()
	set, err := k.Decode(k.Name()+" rules from the dashboard", []byte(data))
	kept := 0
	if err == nil {
		// Java's dashboard sends every rule without dryRun, and flow and
		// degrade rules with "regex": false: a dry run stays one, a regex
		// rule a regex (see datasource.KeepUncarried).
		kept = datasource.KeepUncarried(set)
		err = set.Load()
	}
	if err != nil {
		runtime.Logger().Warn("sentinel: rules from the dashboard refused", slog.String("kind", k.Name()), slog.Any("error", err))
		return "", err
	}
	rf, ok := s.ruleFile(k)
	if !ok {
		runtime.Logger().Info("sentinel: rules set from the dashboard (in memory only: no rule file to write back to)",
			slog.String("kind", k.Name()), slog.Int("rules", set.Len()), slog.Int("keptFromRulesInForce", kept))
		return msgSuccess, nil
	}
	if err := rf.SaveRules(); err != nil {
		runtime.Logger().Error("sentinel: rules from the dashboard loaded but not written back",
			slog.String("kind", k.Name()), slog.String("path", rf.Path), slog.Any("error", err))
		return msgWriteDSFailure, nil
	}
	runtime.Logger().Info("sentinel: rules set from the dashboard",
		slog.String("kind", k.Name()), slog.Int("rules", set.Len()), slog.Int("keptFromRulesInForce", kept), slog.String("path", rf.Path))
	return msgSuccess, nil
}

// ruleFile is where rules of kind k are written back: the RuleFile of that
// kind, else a combined one (which writes every kind in force).
func (s *Server) ruleFile(k datasource.Kind) (dashboard.RuleFile, bool) {
	var combined *dashboard.RuleFile
	for i, rf := range s.cfg.RuleFiles {
		if rf.Kind == nil {
			continue
		}
		if rf.Kind.Name() == k.Name() {
			return rf, true
		}
		if rf.Kind.Name() == datasource.Combined.Name() && combined == nil {
			combined = &s.cfg.RuleFiles[i]
		}
	}
	if combined != nil {
		return *combined, true
	}
	return dashboard.RuleFile{}, false
}

// ruleData is the rule document of a data parameter, which the parameter
// parser has already URL-decoded once. Java decodes it a second time; the
// dashboard encodes it once, so that second decoding only matters to
// clients that encode twice, and would corrupt a '+' or '%' in a resource
// name. Here a document that still looks encoded (starts with %5B, an
// encoded '[') is decoded again, and any other is taken as it is.
func ruleData(data string) (string, error) {
	data = strings.TrimSpace(data)
	if data == "" {
		return "", errors.New("Bad data: the data parameter is empty; send the rules as a JSON array")
	}
	if len(data) >= 3 && strings.EqualFold(data[:3], "%5B") {
		d, err := decodeParam(data)
		if err != nil {
			return "", errors.New("decode rule data error: " + err.Error())
		}
		data = d
	}
	return data, nil
}
