// Package suggest finds the "did you mean" for a misspelt name: the known
// word nearest to it, when it is near enough to be a plausible typo.
//
// The rule, the same for every vocabulary (directive keys, resource types,
// rule kinds, resource names):
//
//   - Words are compared case-folded, in runes, by optimal string
//     alignment distance: an insertion, a deletion, a substitution or a
//     swap of neighbours is one edit ("flwo" is one edit from "flow").
//   - A word differing only in case always counts ("blockhandler" is
//     blockHandler).
//   - Otherwise the nearest word counts when it is at most a third of the
//     shorter word's length away, and at least one edit is always allowed
//     ("nme" suggests name; "x" suggests nothing).
//   - Ties go to the word that sorts first, so the answer does not depend
//     on the order of the list.
package suggest

import "strings"

// Nearest returns the word of known nearest to s under the package's
// rule, or "" when none is near enough.
func Nearest(s string, known []string) string {
	best, bestD := "", -1
	for _, k := range known {
		if strings.EqualFold(s, k) {
			return k
		}
		d := Distance(strings.ToLower(s), strings.ToLower(k))
		if bestD < 0 || d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if bestD < 0 {
		return ""
	}
	limit := max(1, min(runeCount(s), runeCount(best))/3)
	if bestD > limit {
		return ""
	}
	return best
}

func runeCount(s string) int { return len([]rune(s)) }

// Distance is the optimal-string-alignment distance between a and b, in
// runes: insertions, deletions, substitutions and transpositions of
// neighbours each count one. It is case-sensitive.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: the transposition looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
