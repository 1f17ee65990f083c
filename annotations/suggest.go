package annotations

import "strings"

// javaNames maps Java @SentinelResource attributes to their key here, so
// that a user porting an annotation is told the Go spelling.
var javaNames = map[string]string{
	"value":              "name",
	"entryType":          "traffic",
	"resourceType":       "type",
	"exceptionsToIgnore": "ignore",
	"blockHandlerClass":  "blockHandler", // written blockHandler=pkg.Func
	"fallbackClass":      "fallback",     // written fallback=pkg.Func
	"count":              "batch",
}

// suggest returns the known word nearest to s, or "" when none is near
// enough to be a plausible typo.
func suggest(s string, known []string) string {
	if k, ok := javaNames[s]; ok {
		return k
	}
	best, bestDist := "", -1
	for _, k := range known {
		if strings.EqualFold(k, s) {
			return k
		}
		d := editDistance(strings.ToLower(s), strings.ToLower(k))
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	// A third of the word, and at least 2 edits: "fallbak" and "blokHandler"
	// are typos, "foo" is not a misspelt "args".
	if bestDist >= 0 && bestDist <= max(2, len(best)/3) && bestDist < len(s) {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
