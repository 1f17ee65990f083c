package generator

import (
	"go/types"
	"strings"
)

// canonicalMethods are the method names go vet's stdmethods check holds to
// a fixed signature, because interfaces are checked dynamically
// (io.ByteReader, json.Marshaler, ...): a wrapper whose name is one of them
// must have that signature, or the output fails vet. Arguments starting
// with = say the canonical meaning is intended: a Scan method whose first
// parameter is not a fmt.ScanState is left alone. (The table is vet's.)
var canonicalMethods = map[string]struct{ args, results []string }{
	"As":            {[]string{"any"}, []string{"bool"}},
	"Format":        {[]string{"=fmt.State", "rune"}, []string{}},
	"GobDecode":     {[]string{"[]byte"}, []string{"error"}},
	"GobEncode":     {[]string{}, []string{"[]byte", "error"}},
	"Is":            {[]string{"error"}, []string{"bool"}},
	"MarshalJSON":   {[]string{}, []string{"[]byte", "error"}},
	"MarshalXML":    {[]string{"*xml.Encoder", "xml.StartElement"}, []string{"error"}},
	"ReadByte":      {[]string{}, []string{"byte", "error"}},
	"ReadFrom":      {[]string{"=io.Reader"}, []string{"int64", "error"}},
	"ReadRune":      {[]string{}, []string{"rune", "int", "error"}},
	"Scan":          {[]string{"=fmt.ScanState", "rune"}, []string{"error"}},
	"Seek":          {[]string{"=int64", "int"}, []string{"int64", "error"}},
	"UnmarshalJSON": {[]string{"[]byte"}, []string{"error"}},
	"UnmarshalXML":  {[]string{"*xml.Decoder", "xml.StartElement"}, []string{"error"}},
	"UnreadByte":    {[]string{}, []string{"error"}},
	"UnreadRune":    {[]string{}, []string{"error"}},
	"Unwrap":        {[]string{}, []string{"error"}},
	"WriteByte":     {[]string{"byte"}, []string{"error"}},
	"WriteTo":       {[]string{"=io.Writer"}, []string{"int64", "error"}},
}

// nonCanonical returns, for a method wrapper called name with signature
// sig, on a receiver that is an error (isError) or not, the signature vet
// wants when sig is not it, following vet's own special cases; "" when
// vet has nothing to say.
func nonCanonical(name string, sig *types.Signature, isError bool) string {
	want, ok := canonicalMethods[name]
	if !ok {
		return ""
	}
	args, results := sig.Params(), sig.Results()
	if name == "WriteTo" && args.Len() > 1 {
		return "" // not trying to be an io.WriterTo: vet lets it be
	}
	if name == "Is" || name == "As" || name == "Unwrap" {
		if !isError {
			return "" // only an error's Is, As and Unwrap are checked
		}
	}
	if name == "Unwrap" {
		if args.Len() == 0 && results.Len() == 1 {
			if t := vetTypeString(results.At(0).Type()); t == "error" || t == "[]error" {
				return ""
			}
		}
		return "Unwrap() error or Unwrap() []error"
	}
	if !matchParams(want.args, args, "=") || !matchParams(want.results, results, "=") {
		return ""
	}
	if matchParams(want.args, args, "") && matchParams(want.results, results, "") {
		return ""
	}
	s := name + "(" + argJoin(want.args) + ")"
	switch len(want.results) {
	case 0:
	case 1:
		s += " " + argJoin(want.results)
	default:
		s += " (" + argJoin(want.results) + ")"
	}
	return s
}

func vetTypeString(t types.Type) string { return types.TypeString(t, (*types.Package).Name) }

func argJoin(x []string) string {
	y := make([]string, len(x))
	for i, s := range x {
		y[i] = strings.TrimPrefix(s, "=")
	}
	return strings.Join(y, ", ")
}

// matchParams reports whether each expected type with the prefix matches
// the actual one at its index (with prefix "", also that there are no
// more actual ones).
func matchParams(want []string, have *types.Tuple, prefix string) bool {
	for i, x := range want {
		if !strings.HasPrefix(x, prefix) {
			continue
		}
		if i >= have.Len() {
			return false
		}
		t, x := vetTypeString(have.At(i).Type()), strings.TrimPrefix(x, "=")
		if t != x && !((t == "any" || t == "interface{}") && (x == "any" || x == "interface{}")) {
			return false
		}
	}
	return prefix != "" || have.Len() <= len(want)
}
