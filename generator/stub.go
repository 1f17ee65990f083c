package generator

import (
	"bytes"
	"go/parser"
	"go/token"
)

// stubNote explains a stub to whoever opens it.
const stubNote = `// The //sentinel:resource directives of this file's source are gone. The
// file was left empty, not removed, because go generate was running: it
// lists a package's files before running generators and fails on one
// removed meanwhile. sentinelgen run outside go generate removes it.`

// Stub is what an orphan (a previous output whose source lost its
// directives) becomes when it cannot be removed: under go generate. It
// holds the header and the orphan's package clause, nothing else, so
// that the package builds in every configuration and go generate still
// finds the file it listed. ok is false when old is not an output.
func Stub(old []byte) (stub []byte, ok bool) {
	if !IsGenerated(old) {
		return nil, false
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", old, parser.PackageClauseOnly)
	if err != nil {
		return nil, false
	}
	return stubFor(f.Name.Name), true
}

func stubFor(pkg string) []byte {
	return []byte(Header + "\n\n" + stubNote + "\n\npackage " + pkg + "\n")
}

// IsStub reports whether content is a Stub: an orphan already emptied,
// which -check does not report (go generate left it so, and it builds).
func IsStub(content []byte) bool {
	stub, ok := Stub(content)
	return ok && bytes.Equal(stub, content)
}
