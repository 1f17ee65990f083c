package datasource

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"reflect"
	"slices"
	"strings"
)

// KeepUncarried prepares a decoded set from Java's Sentinel dashboard, or
// any writer that knows only some fields of a rule: the dashboard's rule
// entities carry a fixed set of fields (dashboardfields.go lists them per
// kind), so every push after an edit in the console sends every rule of
// the kind without dryRun, and flow and degrade rules with "regex": false;
// loading it as it is would switch each dry-run rule to enforcing and
// each regex rule to an exact name. Call it between Decode and Load. Each
// rule that says nothing of such a field (leaves it out; for a field
// Java's rule class has, such as regex, writes Java's default) takes its
// value from the rule in force it stands for:
//
//  1. the rule in force equal to it in every field the dashboard carries
//     (the rules the operator did not touch: most of a push);
//  2. else, the first rule in force left over with the same resource
//     and limitApp (the rule the operator edited); for system rules,
//     which have neither, the first system rule left over.
//
// Each rule in force stands for one pushed rule at most, the first that
// matches, so a rule the operator added next to a dry-run rule of its
// resource is enforced, as written. A rule that says the field itself
// ("dryRun": false, "regex": true) keeps what it says. KeepUncarried
// reports how many rules took a value from the rule in force. It does
// nothing for a combined set.
func KeepUncarried(set RuleSet) int {
	if k, ok := set.(interface{ keepDryRun() int }); ok {
		return k.keepDryRun()
	}
	return 0
}

// KeepDryRun is KeepUncarried, which keeps dryRun and every other field
// the dashboard does not carry.
//
// Deprecated: use KeepUncarried.
func KeepDryRun(set RuleSet) int { return KeepUncarried(set) }

func (s *ruleSet[R]) keepDryRun() int {
	t := reflect.TypeFor[R]()
	keep := uncarriedFields(s.kind.name, t)
	if len(keep) == 0 || len(s.rules) == 0 {
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
	withoutDryRun := func(r R) R { // every field the dashboard carries, alone
		v := reflect.ValueOf(&r).Elem()
		for _, f := range keep {
			v.Field(f.index).SetZero()
		}
		return r
	}
	matched := make([]int, len(s.rules)) // the rule in force each stands for, -1: none
	var silent []int                     // the rules that say nothing of a field kept
	said := make([][]bool, len(s.rules))
	for i := range s.rules {
		matched[i] = -1
		said[i] = saysFields(elems[i], reflect.ValueOf(&s.rules[i]).Elem(), keep)
		if slices.Contains(said[i], false) {
			silent = append(silent, i)
		}
	}
	// The rules in force are indexed by key, so that a push of every rule
	// of a kind costs time linear in the two sets.
	taken := newClaims(len(inForce))
	seed := maphash.MakeSeed()
	equal := indexBy(taken, func(j int) uint64 { return valueHash(seed, reflect.ValueOf(withoutDryRun(inForce[j]))) })
	for _, i := range silent { // 1: equal but for the fields kept
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
		j := matched[i]
		if j < 0 {
			continue
		}
		to, from := reflect.ValueOf(&s.rules[i]).Elem(), reflect.ValueOf(&inForce[j]).Elem()
		took := false
		for n, f := range keep {
			if !said[i][n] && !from.Field(f.index).IsZero() {
				to.Field(f.index).Set(from.Field(f.index))
				took = true
			}
		}
		if took {
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

// saysFields reports, for each field of keep, whether the pushed rule el
// (decoded into r) says it: mentions it (in any case, as encoding/json
// matches it), with a value other than Java's default where the dashboard
// writes that default.
func saysFields(el json.RawMessage, r reflect.Value, keep []uncarried) []bool {
	said := make([]bool, len(keep))
	lower := bytes.ToLower(el)
	var fields []field
	read := false
	for n, f := range keep {
		if !bytes.Contains(lower, []byte(`"`+strings.ToLower(f.name)+`"`)) {
			continue
		}
		if !read {
			var err error
			if fields, err = objectFields(el); err != nil {
				fields = nil
			}
			read = true
		}
		mentioned := fields == nil // it decoded: count the mention
		for _, m := range fields {
			if strings.EqualFold(m.key, f.name) {
				mentioned = true
			}
		}
		said[n] = mentioned && (!f.javaDefault || !r.Field(f.index).IsZero())
	}
	return said
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
