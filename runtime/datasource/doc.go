// Package datasource reads Sentinel rules from JSON documents and puts them
// in force, all or nothing, with errors that say which rule and field is
// wrong and why. Package datasource/file watches rule files with it.
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
//	{"flow": [...], "degrade": [...], "system": [...], "authority": [...], "paramFlow": [...]}
//
// The Kind says which: Flow, Degrade, System, Authority, ParamFlow, or
// Combined. Field names and numeric codes are Java's; enum fields also take
// readable names ("grade": "QPS"); fields absent from a rule take Java's
// defaults; unknown fields (id, app, ip, port, gmtCreate, gmtModified,
// passCount, ... from dashboard exports) are ignored. In a combined
// document, a kind whose key is absent is left alone; an unknown key is an
// error.
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
//   - A document that is not UTF-8 is refused: encoding/json would turn
//     bad bytes in a resource name into U+FFFD and the rule would silently
//     protect another name. A leading UTF-8 byte order mark is skipped.
//   - An invalid rule refuses the whole document; Java logs and skips it.
//   - A file over the size cap (DefaultMaxSize, 4 MiB, Java's MAX_SIZE) is
//     refused, as in Java, with an error that says so.
//
// # Loading goes through the rule packages' properties
//
// A Kind loads through its rule package's Property().Update (Java's
// register2Property), so listeners registered on the property see every
// load from every data source. NewKind makes a Kind for any package that
// keeps the rule loading contract (Property, ValidateRules, Rules).
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
// what is written loads again.
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
