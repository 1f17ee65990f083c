package datasource

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// ErrMissing: the source has no document: its key is absent or was
// deleted. Like an empty document, it never clears the rules in force.
var ErrMissing = errors.New("no document: the key is missing or was deleted (write [] to clear the rules)")

// Keeper is what every watched data source shares, whatever it reads
// from: it loads each version of the document through a Kind, all or
// nothing; keeps the rules in force when a version is refused; and keeps
// the source's Status and subscribers. A source reads, then calls Offer;
// its LastError, Status, Subscribe and Close are the Keeper's.
//
// Its methods are safe for concurrent use; Offer is called by one
// goroutine at a time (the source's watcher).
type Keeper struct {
	cfg KeeperConfig

	mu      sync.Mutex
	status  Status
	subs    map[int]func(Event)
	nextSub int

	// busy is set while Offer loads a version and tells subscribers (see
	// Close).
	busy      atomic.Bool
	closeOnce sync.Once
	dep       *runtime.Dependency // nil unless KeeperConfig.Server

	// Owned by the goroutine that calls Offer.
	lastKey [32]byte
	seen    bool
	// loaded is the encoding of the rules in force right after the last
	// version loaded (nil after a refusal): the same bytes offered again
	// are loaded again when the rules in force changed since (set from a
	// dashboard, say), as Java's property compares with the value in force.
	loaded []byte
}

// KeeperConfig says what a Keeper keeps.
type KeeperConfig struct {
	// Name is the source as errors, events, logs and Status name it:
	// "rules/flow.json", "etcd:/sentinel/rules".
	Name string
	Kind Kind
	// Noun is what log lines call the source: "rule file", "etcd key".
	Noun string
	// Watching is Status.Watching until SetWatching changes it.
	Watching string
	// MaxSize caps a document (DefaultMaxSize when <= 0); a larger one is
	// refused, never truncated.
	MaxSize int64
	// Subscribers are called with every Event, the first included.
	Subscribers []func(Event)
	// Events, when set, gets every Event without blocking: when it is
	// full the event is dropped (Status still tells the state).
	Events chan<- Event
	// Load are the options every version is loaded with
	// (WithPolicy(SkipInvalid) for Java's policy).
	Load []Option
	// Server, for a source on a server ("etcd rule source"), registers it
	// as a runtime.Dependency until Close: Unreachable and Reachable then
	// tell each outage once in the log, metrics and the dashboard.
	Server string
}

// NewKeeper returns a Keeper with nothing offered yet.
func NewKeeper(cfg KeeperConfig) *Keeper {
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = DefaultMaxSize
	}
	if cfg.Noun == "" {
		cfg.Noun = "rule source"
	}
	k := &Keeper{cfg: cfg, subs: map[int]func(Event){}}
	for _, fn := range cfg.Subscribers {
		if fn != nil {
			k.subs[k.nextSub] = fn
			k.nextSub++
		}
	}
	k.status = Status{Path: cfg.Name, Kind: cfg.Kind.Name(), Watching: cfg.Watching}
	if cfg.Server != "" {
		k.dep = runtime.NewDependency(cfg.Server, cfg.Name, "the rules in force are kept, and updates wait")
	}
	return k
}

// Offer takes one read of the source: the document, or why it could not
// be read (then data is ignored). A version equal to the last one offered
// (the same bytes, or the same read error) is counted as a read and
// nothing more, unless the rules in force changed since it was loaded;
// a new one is loaded or refused, logged, recorded in
// Status, and told to subscribers (on the caller's goroutine). It reports
// whether the version was new.
func (k *Keeper) Offer(data []byte, readErr error) bool {
	k.busy.Store(true)
	defer k.busy.Store(false)
	defer func() { // counted once the read is dealt with, so tests can wait on it
		k.mu.Lock()
		k.status.Reads++
		k.mu.Unlock()
	}()
	if readErr == nil && int64(len(data)) > k.cfg.MaxSize {
		readErr = &Error{Name: k.cfg.Name, Err: fmt.Errorf("document %w: %d bytes, over the %d-byte cap; refused, not truncated",
			ErrTooLarge, len(data), k.cfg.MaxSize)}
	}
	var key [32]byte
	if readErr != nil {
		key = sha256.Sum256([]byte("error\x00" + readErr.Error()))
	} else {
		key = sha256.Sum256(data)
	}
	if k.seen && key == k.lastKey && !k.changedInMemory() {
		return false
	}
	k.seen, k.lastKey = true, key
	var rep Report
	err := readErr
	if err == nil {
		rep, err = LoadReport(k.cfg.Name, data, k.cfg.Kind, k.cfg.Load...)
	}
	k.loaded = nil
	if err == nil {
		k.loaded, _ = k.cfg.Kind.Encode()
	}
	k.record(rep, err)
	return true
}

// Close ends a source's watcher goroutine: it calls stop, once however
// often Close is called, and returns once done is closed (the goroutine
// has exited), except while Offer runs. Then Close may come from a
// subscriber or a property listener on that very goroutine, which would
// wait for itself: it returns at once, and the goroutine exits as soon as
// Offer is done. Sources' Close methods are this.
func (k *Keeper) Close(stop func(), done <-chan struct{}) {
	k.closeOnce.Do(func() {
		stop()
		if k.dep != nil {
			k.dep.Close()
		}
	})
	if k.busy.Load() {
		return
	}
	<-done
}

// EncodeSave is what a source's write-back writes when asked to save the
// rules of kind: the source's kind (saveKind) in force, encoded and
// checked to load again under the source's size cap (encodeCheckedMax).
func (k *Keeper) EncodeSave(kind Kind) ([]byte, error) {
	kind, err := saveKind(k.cfg.Kind, kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.cfg.Name, err)
	}
	return encodeCheckedMax(k.cfg.Name, kind, k.cfg.MaxSize)
}

// changedInMemory reports whether the rules in force differ from those the
// last version loaded put in force.
func (k *Keeper) changedInMemory() bool {
	if k.loaded == nil {
		return false
	}
	now, err := k.cfg.Kind.Encode()
	return err == nil && !bytes.Equal(now, k.loaded)
}

// record keeps the outcome of a new version, logs it, and tells subscribers.
func (k *Keeper) record(rep Report, err error) {
	now := time.Now()
	ev := Event{Path: k.cfg.Name, Kind: k.cfg.Kind.Name(), Loaded: err == nil, Err: err, Rules: rep.Rules, Time: now, Warnings: rep.Warnings}
	k.mu.Lock()
	k.status.LastChange = now
	k.status.LastError = err
	everLoaded := k.status.Loads > 0
	if err == nil {
		k.status.LastLoad, k.status.Rules = now, rep.Rules
		k.status.Warnings = rep.Warnings
		k.status.Loads++
	} else {
		k.status.Refusals++
	}
	ids := make([]int, 0, len(k.subs))
	for id := range k.subs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	fns := make([]func(Event), len(ids))
	for i, id := range ids {
		fns[i] = k.subs[id]
	}
	k.mu.Unlock()

	switch {
	case err == nil:
		logReport(k.cfg.Name, k.cfg.Kind.Name(), rep)
	case !everLoaded:
		// Nothing from this source was ever in force: "kept" would claim
		// a protection the service does not have.
		runtime.Logger().Warn("sentinel: "+k.cfg.Noun+" not loaded; none of its rules are in force until a valid version appears",
			slog.String("path", k.cfg.Name), slog.String("kind", k.cfg.Kind.Name()), slog.String("error", summary(err)))
	default:
		runtime.Logger().Warn("sentinel: "+k.cfg.Noun+" refused; the rules in force are kept",
			slog.String("path", k.cfg.Name), slog.String("kind", k.cfg.Kind.Name()), slog.String("error", summary(err)))
	}
	for _, fn := range fns {
		k.call(fn, ev)
	}
	if k.cfg.Events != nil {
		select {
		case k.cfg.Events <- ev:
		default:
		}
	}
}

// call runs a subscriber; its panic is logged, not let loose on the
// watcher goroutine (which would take the process down).
func (k *Keeper) call(fn func(Event), ev Event) {
	defer func() {
		if p := recover(); p != nil {
			runtime.Logger().Error("sentinel: "+k.cfg.Noun+" subscriber panicked",
				slog.String("path", k.cfg.Name), slog.Any("panic", p))
		}
	}()
	fn(ev)
}

// summary keeps a log line readable when a document has thousands of bad
// rules: the first ten lines of err, and how many more there are.
func summary(err error) string {
	const keep = 10
	lines := strings.Split(err.Error(), "\n")
	if len(lines) <= keep {
		return err.Error()
	}
	return strings.Join(lines[:keep], "\n") + fmt.Sprintf("\n... and %d more", len(lines)-keep)
}

// SetWatching sets Status.Watching: how the source sees changes now.
func (k *Keeper) SetWatching(how string) {
	k.mu.Lock()
	k.status.Watching = how
	k.mu.Unlock()
}

// Unreachable sets Status.Watching to how and, for a source on a server
// (KeeperConfig.Server), begins an outage: the first call logs one
// warning with cause, later ones until Reachable only set Watching.
func (k *Keeper) Unreachable(how string, cause error) {
	// Told, then shown: whoever reads the status finds the line written.
	if k.dep != nil {
		k.dep.Down(cause)
	}
	k.SetWatching(how)
}

// Reachable sets Status.Watching to how and ends an outage in progress
// with one info line.
func (k *Keeper) Reachable(how string) {
	if k.dep != nil {
		k.dep.Up("meanwhile", "the rules in force were kept")
	}
	k.SetWatching(how)
}

// LastWarnings is the warnings of the last version loaded (nil when it
// had none): what Java accepts and its author should probably fix, and
// the rules a SkipInvalid policy left out.
func (k *Keeper) LastWarnings() []Warning {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.status.Warnings
}

// LastError is nil after a good load, and the reason of the last refusal
// otherwise.
func (k *Keeper) LastError() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.status.LastError
}

// Status reports the source's state.
func (k *Keeper) Status() Status {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.status
}

// Subscribe calls fn with every later Event, on the goroutine that calls
// Offer. cancel stops it.
func (k *Keeper) Subscribe(fn func(Event)) (cancel func()) {
	if fn == nil {
		return func() {}
	}
	k.mu.Lock()
	id := k.nextSub
	k.nextSub++
	k.subs[id] = fn
	k.mu.Unlock()
	return func() {
		k.mu.Lock()
		delete(k.subs, id)
		k.mu.Unlock()
	}
}
