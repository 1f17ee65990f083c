// Package ruleutil holds what every rule package needs: decoding Java's
// numeric enum codes or readable names from JSON, Java's regex resources,
// and limitApp defaults.
package ruleutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// LimitAppDefault and LimitAppOther are Java's RuleConstant.LIMIT_APP_*.
const (
	LimitAppDefault = "default"
	LimitAppOther   = "other"
)

// LimitApp returns limitApp, or "default" when it is blank (Java fills it on
// load).
func LimitApp(limitApp string) string {
	if strings.TrimSpace(limitApp) == "" {
		return LimitAppDefault
	}
	return limitApp
}

// DecodeEnum decodes a JSON enum field that holds Java's numeric code (1,
// 1.0) or one of the readable names (matched case-insensitively, ignoring
// '_' and '-'). names maps each code to its names. The error says what was
// found and what is accepted.
func DecodeEnum(data []byte, names map[int][]string) (int, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return 0, err
		}
		want := normalize(s)
		for code, ns := range names {
			for _, n := range ns {
				if normalize(n) == want {
					return code, nil
				}
			}
			if strconv.Itoa(code) == s {
				return code, nil
			}
		}
		return 0, fmt.Errorf("%q is not one of %s", s, accepted(names))
	}
	// Plain integer codes are the common case: read them without a JSON
	// decode.
	if code, err := strconv.Atoi(string(data)); err == nil {
		if _, ok := names[code]; !ok {
			return 0, fmt.Errorf("%d is not one of %s", code, accepted(names))
		}
		return code, nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return 0, fmt.Errorf("%s is not a number or a name (%s)", data, accepted(names))
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, fmt.Errorf("%s is not a whole number", data)
	}
	code := int(f)
	if _, ok := names[code]; !ok {
		return 0, fmt.Errorf("%d is not one of %s", code, accepted(names))
	}
	return code, nil
}

func normalize(s string) string {
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
}

func accepted(names map[int][]string) string {
	codes := make([]int, 0, len(names))
	for c := range names {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = strconv.Itoa(c)
		if ns := names[c]; len(ns) > 0 {
			parts[i] += " (" + strings.Join(ns, ", ") + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// Enum is a rule enum's table: its Go type's name and, for each of Java's
// codes, the names JSON accepts, the first of which String prints. A rule
// package's enum types delegate their String, MarshalJSON and UnmarshalJSON
// to it.
type Enum struct {
	Type  string
	Names map[int][]string
	// Open accepts any whole number in Java's int range besides the
	// named codes, as Java's int fields do: the rule package's validator
	// and lint say what an unknown code means.
	Open bool
}

// String prints code's first name, or Type(code) for an unknown code.
func (e Enum) String(code int) string {
	if ns := e.Names[code]; len(ns) > 0 {
		return ns[0]
	}
	return e.Type + "(" + strconv.Itoa(code) + ")"
}

// Marshal writes Java's numeric code.
func (e Enum) Marshal(code int) ([]byte, error) { return []byte(strconv.Itoa(code)), nil }

// Unmarshal decodes a code or a name into *code (see DecodeEnum); on error
// *code is left alone.
func (e Enum) Unmarshal(data []byte, code *int) error {
	if e.Open {
		if f, err := strconv.ParseFloat(string(bytes.TrimSpace(data)), 64); err == nil &&
			f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
			*code = int(f)
			return nil
		}
	}
	c, err := DecodeEnum(data, e.Names)
	if err != nil {
		return err
	}
	*code = c
	return nil
}
