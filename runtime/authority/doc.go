// Package authority is Sentinel's AuthoritySlot: white and black lists of
// the origins that may call a resource. Import it to register the slot.
//
//	authority.LoadRules([]authority.Rule{
//		{Resource: "getOrder", LimitApp: "web,batch", Strategy: authority.White},
//	})
//	ctx = runtime.EnterContext(ctx, "http", "web") // the caller's origin
//
// Rule has Java's AuthorityRule JSON fields: resource, limitApp (the
// comma-separated origins, required), strategy (0 white list, the default;
// 1 black list; or the names "white", "black") and regex. A call is refused
// with runtime.BlockAuthority, the *Rule and its origin as the triggered
// value, when its origin is on a black list or missing from a white list.
// The origin is the one given to runtime.EnterContext.
//
// # Differences from Java
//
//   - Origins are trimmed: "appB, appE" lists appB and appE. Java splits
//     without trimming and compares " appE", space included, so a listed
//     origin written after a space never matches; that is a trap, not a
//     feature, and is not copied.
//   - LoadRules refuses an invalid rule set whole, with a runtime.RuleErrors
//     naming each bad rule's index, field and reason, where Java skips the
//     rule with a warning. Java's checks (resource and limitApp not blank,
//     strategy >= 0, a valid regex) apply. What Java accepts loads with
//     Java's meaning, and LintRules says what it is: an unknown strategy
//     (2 and up) passes every call; a limitApp that names no origin (",,")
//     makes a white list refuse every caller with an origin; a second rule
//     for a resource string is ignored, the first kept, whether either is
//     a regex or not (Java keys its rules by the string: a regex rule "r1"
//     and a rule for the resource r1 are one resource's two rules).
//   - A call with no origin passes every rule, as in Java, unless
//     SetStrict(true): then a white list refuses it (it is not on the list),
//     and black lists still let it through.
//
// A resource can be covered by its own rule and by regex rules matching
// its name (each regex rule applies to every resource it fully matches);
// each of them must let the call through.
//
// # Dry run
//
// A rule with DryRun set ("dryRun": true) checks every call but admits
// it: the calls it would have refused are counted apart
// (runtime.Resource.DryRunBlockCount with runtime.BlockAuthority, the block
// log's "would block (dry run)" lines), and the resource's other rules
// still decide. Java Sentinel ignores the field and would enforce the rule.
//
// # Cost
//
// Origins are parsed once, at load, into a sorted list (a map for lists
// longer than eight); a call costs a scan or a map lookup and allocates
// nothing unless it is refused.
package authority
