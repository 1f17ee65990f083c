package annotations

import "github.com/sentinelgen/sentinelgen/internal/suggest"

// suggestKey returns the key a misspelt or Java-named key most likely
// means, or "".
func suggestKey(s string) string {
	if k := javaKey(s); k != "" {
		return k
	}
	return nearest(s, keyNames())
}

// nearest is suggest.Nearest: one "did you mean" rule for every
// vocabulary.
func nearest(s string, known []string) string { return suggest.Nearest(s, known) }
