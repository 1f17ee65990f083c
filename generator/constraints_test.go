package generator

import (
	"go/build/constraint"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuildConstraintReadsGoBuildInThePackageDoc(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"//go:build touching the package clause counts",
			"// Package p.\n//go:build unix\npackage p\n", "//go:build unix"},
		{"//go:build alone touching the package clause counts",
			"//go:build windows\npackage p\n", "//go:build windows"},
		{"// +build touching the package clause does not",
			"// Package p.\n// +build windows\npackage p\n", ""},
		{"//go:build after the package clause does not",
			"package p\n\n//go:build windows\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "x.go", tt.src, parser.ParseComments)
			require.NoError(t, err)
			assert.Equal(t, tt.want, buildConstraint("/d/x.go", f))
		})
	}
}

func TestImplies(t *testing.T) {
	parse := func(s string) constraint.Expr {
		if s == "" {
			return nil
		}
		x, err := constraint.Parse("//go:build " + s)
		require.NoError(t, err)
		return x
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"", "", true},
		{"linux", "", true},
		{"", "unix", false},
		{"linux", "unix", true},
		{"unix", "linux", false},
		{"android", "linux", true},
		{"", "unix || !unix", true},
		{"windows", "unix", false},
		{"linux && cgo", "cgo", true},
		{"purego", "!purego", false},
	} {
		assert.Equal(t, tt.want, implies(parse(tt.a), parse(tt.b)), "%s => %s", tt.a, tt.b)
	}
}
