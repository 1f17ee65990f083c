// Package datasource reads Sentinel rules from JSON documents as Java's
// parsers read them and puts them in force, all or nothing by default,
// with errors that say which rule and field is wrong and why, and
// warnings for what Java accepts but the author should probably fix.
// Package datasource/file watches rule files with it.
//
// # Documents
//
// A document holds one kind of rule, as a JSON array in Java Sentinel's
// format (Spring Cloud Alibaba's `rule-type: flow` file data source):
//
//	[{"resource": "/api/order", "limitApp": "default", "grade": 1, "count": 20,
//	  "strategy": 0, "controlBehavior": 0}]
//
// or every kind in one object (a sentinelgen extension):
//
//	{"flow": [...], "degrade": [...], "system": [...], "authority": [...], "paramFlow": [...], "adaptive": [...]}
//
// The Kind says which: Flow, Degrade, System, Authority, ParamFlow,
// Adaptive (adaptive concurrency limits, which Java Sentinel lacks), or
// Combined. Field names and numeric codes are Java's; enum fields also take
// readable names ("grade": "QPS"); fields absent from a rule take Java's
// defaults; unknown fields (id, app, ip, port, gmtCreate, gmtModified,
// passCount, ... from dashboard exports) are ignored. An unknown field
// near a field of its rule kind ("cout", "controlBehaviour", "refResorce":
// one edit from a field of 4 to 7 letters, two from a longer one; never a
// field Java or the dashboard writes) is a Warning naming the field it
// probably means, and a refusal it causes (a required field left blank)
// names it too. In a combined document, a kind whose key is absent is left
// alone; an unknown key is an error, with the nearest kind suggested.
//
// # As Java's parsers read it
//
// A document is read as Java's parsers read it (fastjson in Sentinel's
// file, Nacos, Redis and Consul data sources; Jackson in Spring Cloud
// Alibaba's converters), and each liberty is a Warning: `//` and `/* */`
// comments and commas before `]` or `}` (fastjson; parsed with
// github.com/tailscale/hujson, so positions stay those of the original
// text); text after the document (Jackson stops after the first value);
// quoted numbers and booleans ("count": "5", "clusterConfig": {"flowId":
// "1"}, "clusterMode": "false"), numbers for strings, 0 and 1 for booleans;
// whole decimals for integer fields ("timeWindow": 10.0); null for a field,
// which keeps the field's default as fastjson keeps it ("grade": null is
// QPS). NaN and Infinity, quoted or not, values of a type nothing coerces
// ("count": "ten"), fractions for integer fields, and documents that are
// not rule documents stay refused.
//
// Rules that Java's validators accept load, with the meaning Java gives
// them, and each is a Warning from the rule package's LintRules (an unknown
// flow strategy code passes every call, a hot-parameter warm-up behavior is
// the token bucket, ...). Two shapes that Java silently loads as no rule
// are warned about: a dashboard export wrapping each rule in
// {"app": ..., "rule": {...}}, and a gateway rule's paramItem in a
// hot-parameter file.
//
// Warnings come with the load (LoadReport; a data source's LastWarnings,
// Status and Events), at most MaxWarnings of them, and from CheckFiles.
//
// # Errors
//
// Loading is all or nothing: a document with any invalid rule changes no
// rule in force, and its *Error names every problem, one per line:
//
//	flow.json: rule 2 (resource "getOrder"): count -1 is negative; it must be >= 0 (0 blocks every call)
//	flow.json:3:14: JSON syntax error: invalid character 'N' looking for beginning of value (NaN and Infinity are not JSON numbers)
//	flow.json: rule 0 (resource "getOrder"): count 1e400 does not fit a float64
//	rules.json: degrade: rule 0 (resource "getOrder"): grade 9 is not one of 0 (...), 1 (...), 2 (...)
//
// errors.As finds each *runtime.RuleError (index, resource, JSON field,
// reason); errors.Is tells ErrEmpty, ErrTooLarge, ErrInvalidUTF8 and
// ErrSyntax apart.
//
// Where we differ from Java, deliberately:
//
//   - An empty or blank document, or null, is refused and never clears the
//     rules in force; Java's fastjson turns blank text into null and the
//     rule managers then clear every rule. Write [] to mean "no rules".
//   - A document that is not UTF-8 is refused (Java's readers turn bad
//     bytes into U+FFFD, and the rule would silently protect another
//     name); the error shows the bytes escaped ("caf\xe9"). A leading UTF-8
//     byte order mark is skipped.
//   - A rule Java's validators refuse refuses the whole document; Java
//     logs and skips it. WithPolicy(SkipInvalid) is Java's policy, for
//     migrations: each invalid rule is left out with a Warning saying why.
//   - A file over the size cap (DefaultMaxSize, 4 MiB, Java's MAX_SIZE) is
//     refused, as in Java, with an error that says so.
//
// # Loading goes through the rule packages' properties
//
// A Kind loads through its rule package's Property().Update (Java's
// register2Property), so listeners registered on the property see every
// load from every data source. NewKind makes a Kind for any package that
// keeps the rule loading contract (Property, ValidateRules, Rules), and
// WithLint gives it the package's LintRules.
//
// # Writing a data source
//
// A data source (a file, an etcd key, a Redis channel) reads bytes and
// hands each version to a Keeper (NewKeeper, Keeper.Offer), passing on
// the Options its user gave (WithPolicy) in KeeperConfig.Load. The Keeper
// loads what is new, keeps the rules in force when a version is refused,
// logs each outcome once, and keeps the Status, LastError, LastWarnings
// and subscribers that the dashboard and the metrics collector read; a
// write-back encodes through Keeper.EncodeSave, which refuses what would
// not load again. Packages datasource/file, datasource/etcd and
// datasource/redis are built this way.
//
// # Checking rule files
//
// CheckFiles is the engine of `sentinelgen rules check`: it reports what a
// data source would refuse, without loading, and warns on rules whose
// resource no //sentinel:resource declares, with the nearest declared name
// ("did you mean"): a typo in a rule file protects nothing, silently, in
// Java as here. DetectKind tells a file's kind from its name or fields.
//
// # Writing rules back
//
// Kind.Encode writes the rules in force as Java-compatible JSON; package
// datasource/file writes them atomically. EncodeChecked also checks that
// what is written loads again. Rules from Java's dashboard, whose rule
// entities carry a fixed set of fields (no dryRun; no regex for flow and
// degrade rules), go through KeepUncarried before Load, so that a push
// never switches a dry run into enforcing nor a regex rule into an exact
// name.
//
// # Sources
//
// Package datasource/file watches rule files; datasource/etcd an etcd key;
// datasource/redis a Redis key and channel. Each reads its document and
// hands every read to a Keeper, which loads new versions, keeps the rules
// in force when one is refused, and keeps the Status and subscribers that
// the dashboard and the metrics collector read. A source of your own does
// the same.
package datasource
