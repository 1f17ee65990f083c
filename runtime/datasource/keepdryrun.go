package datasource

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"reflect"
	"strings"
)

// KeepDryRun prepares a decoded set from a writer that knows nothing of
// dryRun, Java's Sentinel dashboard above all: its rule entities keep
// only Java's fields, so every push sends every rule of a kind without
// dryRun, and loading it as it is would switch each dry-run rule to
// enforcing. Call it between Decode and Load. Each rule that does not
// mention dryRun takes the DryRun of the rule in force it stands for:
//
//  1. the rule in force equal to it in every field but dryRun (the rules
//     the operator did not touch: most of a push);
//  2. else, the first rule in force left over with the same resource
//     and limitApp (the rule the operator edited); for system rules,
//     which have neither, the first system rule left over.
//
// Each rule in force stands for one pushed rule at most, the first that
// matches, so a rule the operator added next to a dry-run rule of its
// resource is enforced, as written. A rule that says "dryRun" itself
// keeps what it says. KeepDryRun reports how many rules it kept as dry
// runs. It does nothing for a combined set or a kind without dryRun.
func KeepDryRun(set RuleSet) int {
	if k, ok := set.(interface{ keepDryRun() int }); ok {
		return k.keepDryRun()
	}
	return 0
}

func (s *ruleSet[R]) keepDryRun() int {
	t := reflect.TypeFor[R]()
	dry := fieldTagged(t, "dryRun", reflect.Bool)
	if dry < 0 || len(s.rules) == 0 {
		return 0
	}
	elems := s.raw()[s.kind.name]
	inForce := s.kind.current()
	if len(elems) != len(s.rules) || len(inForce) == 0 {
		return 0
	}
	resource, limitApp := fieldTagged(t, "resource", reflect.String), fieldTagged(t, "limitApp", reflect.String)
	stringAt := func(r *R, i int) string {
		if i < 0 {
			return ""
		}
		return reflect.ValueOf(r).Elem().Field(i).String()
	}
	withoutDryRun := func(r R) R {
		reflect.ValueOf(&r).Elem().Field(dry).SetBool(false)
		return r
	}
	matched := make([]int, len(s.rules)) // the rule in force each stands for, -1: none
	var silent []int                     // the rules that do not mention dryRun
	for i := range s.rules {
		matched[i] = -1
		if !mentionsDryRun(elems[i]) {
			silent = append(silent, i)
		}
	}
	// The rules in force are indexed by key, so that a push of every rule
	// of a kind costs time linear in the two sets.
	taken := newClaims(len(inForce))
	seed := maphash.MakeSeed()
	equal := indexBy(taken, func(j int) uint64 { return valueHash(seed, reflect.ValueOf(withoutDryRun(inForce[j]))) })
	for _, i := range silent { // 1: equal but for dryRun
		want := withoutDryRun(s.rules[i])
		matched[i] = equal.claim(valueHash(seed, reflect.ValueOf(want)), func(j int) bool {
			return reflect.DeepEqual(want, withoutDryRun(inForce[j]))
		})
	}
	type name struct{ resource, limitApp string }
	nameOf := func(r *R) name { return name{stringAt(r, resource), normLimitApp(stringAt(r, limitApp))} }
	edited := indexBy(taken, func(j int) name { return nameOf(&inForce[j]) })
	for _, i := range silent { // 2: edited: the same resource and limitApp
		if matched[i] < 0 {
			matched[i] = edited.claim(nameOf(&s.rules[i]), nil)
		}
	}
	kept := 0
	for _, i := range silent {
		if j := matched[i]; j >= 0 && reflect.ValueOf(&inForce[j]).Elem().Field(dry).Bool() {
			reflect.ValueOf(&s.rules[i]).Elem().Field(dry).SetBool(true)
			kept++
		}
	}
	return kept
}

// normLimitApp is a limitApp as the rules in force hold it: blank is
// "default", as every rule package fills it in.
func normLimitApp(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "default"
	}
	return s
}

// mentionsDryRun reports whether a rule object has a dryRun member (in
// any case, as encoding/json matches it).
func mentionsDryRun(el json.RawMessage) bool {
	if !bytes.Contains(bytes.ToLower(el), []byte(`"dryrun"`)) {
		return false
	}
	fields, err := objectFields(el)
	if err != nil {
		return true // it decoded: count the mention
	}
	for _, f := range fields {
		if strings.EqualFold(f.key, "dryRun") {
			return true
		}
	}
	return false
}

// fieldTagged is the index of t's field with JSON name name and kind k,
// or -1.
func fieldTagged(t reflect.Type, name string, k reflect.Kind) int {
	for i := range t.NumField() {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name && f.Type.Kind() == k {
			return i
		}
	}
	return -1
}
