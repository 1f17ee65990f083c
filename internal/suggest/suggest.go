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

import (
	"strings"
	"unicode/utf8"
)

// Nearest returns the word of known nearest to s under the package's
// rule, or "" when none is near enough.
//
// Its cost follows the known words, not s: s is read once (case-folded
// and counted), and only a word whose length is within the largest limit
// any word allows is compared edit by edit. Two words whose lengths
// differ by more than that are further apart than it, so the answer is
// the same as comparing every word: a 4 MiB misspelt name costs what
// reading it costs.
func Nearest(s string, known []string) string {
	lower := strings.ToLower(s)
	n := utf8.RuneCountInString(lower)
	lengths := make([]int, len(known))
	reach := 0 // no answer is further from s than this
	for i, k := range known {
		lengths[i] = utf8.RuneCountInString(k)
		reach = max(reach, limit(n, lengths[i]))
	}
	best, bestD, bestLen := "", -1, 0
	for i, k := range known {
		if strings.EqualFold(s, k) {
			return k
		}
		if abs(n-lengths[i]) > reach {
			continue // at least that many insertions or deletions away
		}
		d := Distance(lower, strings.ToLower(k))
		if bestD < 0 || d < bestD || (d == bestD && k < best) {
			best, bestD, bestLen = k, d, lengths[i]
		}
	}
	if bestD < 0 || bestD > limit(n, bestLen) {
		return ""
	}
	return best
}

// limit is the most edits between words of m and n runes that still make
// a plausible typo: a third of the shorter, at least one.
func limit(m, n int) int { return max(1, min(m, n)/3) }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

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
