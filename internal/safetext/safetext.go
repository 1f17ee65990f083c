// Package safetext makes strings that come from outside — callers'
// origins, URL paths, argument values, rule documents — safe to put where
// a bad byte does harm: a Prometheus label (which must be valid UTF-8, or
// the whole scrape fails), a log line (where a newline forges another
// line) and a JSON document (where encoding/json silently turns a bad byte
// into U+FFFD, so two names become one).
//
// Both functions return their argument unchanged, without allocating, when
// it is already clean and short enough; otherwise:
//
//   - each byte that is not part of valid UTF-8 is written \xNN;
//   - control characters are escaped: \n, \r, \t, and \xNN or \uNNNN for
//     the others (C0, DEL, C1, the line and paragraph separators U+2028
//     and U+2029, and the bidirectional overrides and isolates, which
//     reorder what a terminal shows);
//   - the result is cut, on a character boundary, to a byte budget.
//
// The work done is bounded by the budget, not by the input's length
// (Label also hashes the whole input, once, when it cuts it).
package safetext

import (
	"hash/fnv"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLabel is the most bytes Label returns.
const MaxLabel = 256

// DefaultLog is the budget Log uses when given max <= 0.
const DefaultLog = 1024

// MaxName is the most bytes Name returns.
const MaxName = 256

// Clean reports whether s is valid UTF-8 without control characters:
// whether Label and Log (with a budget of at least len(s)) return s as is.
func Clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || escaped(r) {
			return false
		}
		i += size
	}
	return true
}

// Label returns s as a Prometheus label value (or any other identifier
// shown to people): valid UTF-8, control characters escaped, at most
// MaxLabel bytes. A value that has to be cut ends in "…#" and eight hex
// digits of a hash of the whole of s, so that two long values that share
// their first 240-odd bytes stay two labels.
func Label(s string) string {
	if len(s) <= MaxLabel && Clean(s) {
		return s
	}
	const suffix = len("…#") + 8
	out, cut := escape(s, MaxLabel)
	if !cut {
		return out
	}
	out, _ = escape(s, MaxLabel-suffix)
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	sum := strconv.FormatUint(uint64(h.Sum32()), 16)
	return out + "…#" + strings.Repeat("0", 8-len(sum)) + sum
}

// Log returns s for a log line or an error message: valid UTF-8, control
// characters escaped, at most max bytes (DefaultLog when max <= 0). A value
// that has to be cut ends in "…(N bytes)", N being len(s), within the
// budget when max is at least 32.
func Log(s string, max int) string {
	if max <= 0 {
		max = DefaultLog
	}
	if len(s) <= max && Clean(s) {
		return s
	}
	out, cut := escape(s, max)
	if !cut {
		return out
	}
	marker := "…(" + strconv.Itoa(len(s)) + " bytes)"
	if max < 32 || len(marker) >= max {
		return out
	}
	out, _ = escape(s, max-len(marker))
	return out + marker
}

// Name returns a name a caller chose (a resource named after a path or
// URL, an origin, a request path) for a log line or a trace: Log with a
// budget of MaxName bytes.
func Name(s string) string { return Log(s, MaxName) }

// escape writes s escaped, stopping before the output would pass budget
// bytes; cut reports whether some of s was left out.
func escape(s string, budget int) (out string, cut bool) {
	var b strings.Builder
	b.Grow(min(len(s), budget))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = `\x` + hex2(s[i])
		case r == '\n':
			piece = `\n`
		case r == '\r':
			piece = `\r`
		case r == '\t':
			piece = `\t`
		case r < 0x20 || r == 0x7f:
			piece = `\x` + hex2(byte(r))
		case escaped(r):
			piece = `\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:]
		default:
			piece = s[i : i+size]
		}
		if b.Len()+len(piece) > budget {
			return b.String(), true
		}
		b.WriteString(piece)
		i += size
	}
	return b.String(), false
}

// escaped reports whether a non-ASCII rune is a control character to
// escape.
func escaped(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
