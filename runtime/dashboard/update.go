package dashboard

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
)

// RuleFile is where updates of one kind of rule go. PUT api/rules/{name},
// where name is Kind.Name() ("flow", "degrade", ..., "combined"), takes a
// document of that kind (a JSON array; for a combined kind, an object whose
// absent keys leave those kinds alone), and:
//
//  1. decodes, validates and loads it as a file load would, all or nothing
//     (an invalid document changes nothing and is answered 400 with the
//     same message a rule file would log);
//  2. saves the rules now in force to Path (file.Write: atomically,
//     compact, Java's field names, the file's mode and owner kept), so
//     that they survive a restart: the file.Source watching Path reads
//     back what is already in force.
//
// What is saved must load again. When the rules would encode to more than
// MaxSize (Java's defaults filled in make a terse rule several times
// larger), or their encoding would not load, the update is refused with
// 413: the rules in force before are put back and the file is unchanged.
// A Save that refuses for the same reasons (its error wraps
// datasource.ErrWouldNotLoad, as the etcd and Redis sources' Save do) is
// answered the same way.
//
// Unlike the Java dashboard's pushes, which live in memory, an update
// outlives the process.
type RuleFile struct {
	Kind datasource.Kind
	// Path is the rule file that a file.Source watches for Kind.
	Path string
	// MaxSize is the size cap of the file.Source watching Path
	// (file.WithMaxSize); 0 means its default, 4 MiB.
	MaxSize int64
	// Save, when set, replaces file.Write(Path, Kind): a data source of
	// another kind (a config service) saves the rules in force its way.
	Save func(kind datasource.Kind) error
}

// SaveRules saves the rules of f.Kind now in force where f says: f.Save
// when set, else file.Write to f.Path. Other rule writers (the Java
// dashboard's setRules in runtime/transport) write back through it too.
func (f RuleFile) SaveRules() error {
	if f.Kind == nil {
		return errors.New("no rule kind to save")
	}
	if f.Save != nil {
		return f.Save(f.Kind)
	}
	if f.Path == "" {
		return errors.New("no rule file to save to")
	}
	return file.Write(f.Path, f.Kind, file.WithMaxSize(f.MaxSize))
}

// WithRuleUpdates turns rule updates on for the given files. Without it
// the handler is read-only and PUT is refused with 403.
//
// The handler has no authentication of its own: mount it behind the
// application's. With rule updates on, it answers only requests whose Host
// is allowed (loopback names and the listener's address by default; see
// WithAllowedHosts), and refuses a browser's cross-origin PUT
// (http.CrossOriginProtection; see WithTrustedOrigins).
func WithRuleUpdates(files ...RuleFile) Option {
	return func(c *config) {
		if c.updates == nil {
			c.updates = make(map[string]RuleFile)
		}
		for _, f := range files {
			if f.Kind != nil {
				c.updates[f.Kind.Name()] = f
			}
		}
	}
}

// updateMu serialises updates, so that the file holds the last rules
// loaded.
var updateMu sync.Mutex

// UpdateResult is the answer to a successful rule update.
type UpdateResult struct {
	Kind   string `json:"kind"`
	Loaded int    `json:"loaded"`
	Saved  string `json:"saved,omitempty"`
}

func (h *Handler) serveRuleUpdate(w http.ResponseWriter, r *http.Request) {
	kind := r.PathValue("kind")
	if len(h.updates) == 0 {
		writeError(w, http.StatusForbidden, "rule updates are off (dashboard.WithRuleUpdates)")
		return
	}
	rf, ok := h.updates[kind]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("rules of kind %q cannot be updated here; these can: %v", kind, h.editable()))
		return
	}
	limit := rf.MaxSize
	if limit <= 0 {
		limit = datasource.DefaultMaxSize
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, err.Error())
		return
	}
	updateMu.Lock()
	defer updateMu.Unlock()
	// What is in force now, to put back if the new rules cannot be saved
	// in a form that loads again.
	before, beforeErr := rf.Kind.Encode()
	set, err := rf.Kind.Decode("api/rules/"+kind, data)
	if err == nil {
		err = set.Load()
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := rf.SaveRules(); errors.Is(err, datasource.ErrWouldNotLoad) {
		if rerr := restore(rf.Kind, before, beforeErr); rerr != nil {
			runtime.Logger().Error("sentinel: dashboard rule update refused, and the rules before could not be put back",
				slog.String("kind", kind), slog.Any("error", rerr))
			writeError(w, http.StatusInternalServerError, "the rules would not load again and were not saved; putting the rules before back failed: "+rerr.Error()+"; the new rules are in force")
			return
		}
		writeError(w, http.StatusRequestEntityTooLarge, "refused: "+err.Error()+"; the rules in force are unchanged")
		return
	} else if err != nil {
		runtime.Logger().Error("sentinel: dashboard rule update loaded but not saved",
			slog.String("kind", kind), slog.String("path", rf.Path), slog.Any("error", err))
		writeError(w, http.StatusInternalServerError, "the rules are in force but were not saved: "+err.Error())
		return
	}
	runtime.Logger().Info("sentinel: rules updated through the dashboard",
		slog.String("kind", kind), slog.Int("rules", set.Len()), slog.String("path", rf.Path))
	writeJSON(w, UpdateResult{Kind: kind, Loaded: set.Len(), Saved: rf.Path})
}

// restore loads the rules encoded in before back.
func restore(kind datasource.Kind, before []byte, encodeErr error) error {
	if encodeErr != nil {
		return encodeErr
	}
	set, err := kind.Decode("(rules in force before)", before)
	if err != nil {
		return err
	}
	return set.Load()
}

func (h *Handler) editable() []string {
	out := make([]string, 0, len(h.updates))
	for name := range h.updates {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
