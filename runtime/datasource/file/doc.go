// Package file is the rule file data source: Java Sentinel's
// FileRefreshableDataSource and FileWritableDataSource, made so that no bad
// file can take protection away.
//
//	src, err := file.Watch(ctx, "rules/flow.json", datasource.Flow)
//	if err != nil {
//		return err
//	}
//	defer src.Close()
//	if err := src.LastError(); err != nil {
//		log.Printf("running without rules until the file is fixed: %v", err)
//	}
//
// # Watching
//
// Watch loads the file before it returns, then follows it. It watches the
// file's directory with fsnotify, so every way a file gets replaced is seen:
// writes in place, an editor's save-by-rename, a temporary file renamed over
// it, deletion and re-creation, and a Kubernetes ConfigMap update (a
// ..data symlink swapped to a new timestamped directory: the watcher
// compares the content the path resolves to, not event names). A burst of
// events is read once, after WithDebounce (50 ms). The file is also polled
// (WithPollInterval, 1 s; size, mtime and identity, then a content hash):
// the only way changes are seen where fsnotify cannot be set up (or
// WithoutFSNotify, for network file systems), and a safety net elsewhere. A
// directory that does not exist yet is watched once it appears.
//
// Content equal to the last version seen is not loaded again.
//
// # Keep-last-good
//
// A malformed, truncated, half-written, emptied (0 bytes or blanks),
// oversized, non-UTF-8 or deleted file never clears or changes the rules in
// force. LastError reports why it was refused, one log line
// (runtime.Logger) says it once per version, and the next valid version is
// picked up — a file that comes back after deletion too. [] is a
// deliberate "no rules" and clears. Java differs: it records the mtime
// before loading, so a half-written file read at the wrong moment is not
// retried until the file changes again; it clears every rule when a file
// becomes blank; and its first-load failure wipes rules already loaded.
//
// Each kind's rules have one owner at a time: two sources of the same kind
// replace each other's rules, as two Java data sources registered to one
// rule manager do. Use one file per kind, or one Combined file.
//
// # Events and status
//
// Subscribe (or WithSubscriber, WithEvents) reports each new version:
// loaded with its rule count and warnings, or refused with its error.
// Status gives the path, how the file is watched, the last load time,
// error and warnings, and counts. LastWarnings is what the version in force
// does that Java accepts and its author should probably fix (comments,
// quoted numbers, rules that do not do what they seem to); they are logged
// once per version.
//
// # Java's policy
//
// A file with a rule Java's validators refuse is refused whole by default.
// WithLoadOptions(datasource.WithPolicy(datasource.SkipInvalid)) loads the
// rest instead, as Java does, with a warning for each rule left out.
//
// # Closing
//
// Close stops the watcher goroutine and the fsnotify watcher; the rules in
// force stay. It is idempotent, may be called from a subscriber or a
// property listener, and leaves no goroutine behind. Cancelling the
// context passed to Watch does the same.
//
// # Writing
//
// Write puts the rules of a kind in force into a file as Java-compatible
// JSON, atomically (temporary file in the same directory, fsync, rename),
// for tools that edit rules; a watching Source picks the file up like any
// other change. It writes only what loads again: compact JSON within the
// size cap, which decodes and validates (else ErrWouldNotLoad, and the
// file is unchanged). It keeps the file's mode, owner and group, and
// follows a symbolic link only to a file in the link's directory or below
// (a ConfigMap's ..data link): a link leading elsewhere is refused.
//
// # Hostile files
//
// Only regular files are read: a FIFO, device or socket at the path is
// refused (datasource.ErrNotRegular) rather than waited on, and Watch
// returns at once with it as LastError. A refused document's error keeps
// its first 100 invalid rules and counts the rest, each line at most 512
// bytes (datasource.Error), so LastError stays small whatever the file.
package file
