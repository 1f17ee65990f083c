package generator

import (
	"go/token"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/packages"
)

// threePackages writes a module of packages a, b and c, each with a
// directive: a imports b and c, c imports b.
func threePackages(t *testing.T) string {
	mod := caseModule(t)
	for name, src := range map[string]string{
		"a/a.go": "package a\n\nimport (\n\t\"context\"\n\n\t\"cases/b\"\n\t\"cases/c\"\n)\n\n" +
			"//sentinel:resource\nfunc get(ctx context.Context, o b.Order) (c.Price, error) { return c.Of(o), nil }\n",
		"b/b.go": "package b\n\nimport \"context\"\n\ntype Order struct{ ID int64 }\n\n" +
			"//sentinel:resource\nfunc load(ctx context.Context, id int64) (Order, error) { return Order{id}, nil }\n",
		"c/c.go": "package c\n\nimport (\n\t\"context\"\n\n\t\"cases/b\"\n)\n\ntype Price int64\n\nfunc Of(o b.Order) Price { return Price(o.ID) }\n\n" +
			"//sentinel:resource\nfunc quote(ctx context.Context, o b.Order) (Price, error) { return Of(o), nil }\n",
	} {
		writeFile(t, filepath.Join(mod, name), []byte(src))
	}
	return mod
}

// TestTypeCheckNamedPackages: the named packages are type-checked from
// source, in the order their imports need, their other imports loaded from
// export data; and when an import of export data imports a named package
// in turn (a imports c imports b, a and b named), packages.Load loads them
// all instead, so that b is one package.
func TestTypeCheckNamedPackages(t *testing.T) {
	t.Parallel()
	mod := threePackages(t)
	for _, tc := range []struct {
		patterns  []string
		checked   bool
		generated int
	}{
		{[]string{"./..."}, true, 3},
		{[]string{"./a", "./b"}, false, 2},
	} {
		// The named packages type-check: a's b is c's b.
		pc := &packages.Config{Mode: listMode, Dir: mod, Env: moduleEnv(), Fset: token.NewFileSet(), ParseFile: parseDeclarations}
		pkgs, err := packages.Load(pc, tc.patterns...)
		require.NoError(t, err)
		require.Equal(t, tc.checked, typeCheck(pc, pkgs), "%v", tc.patterns)
		if tc.checked {
			for _, p := range pkgs {
				require.Empty(t, p.Errors, p.PkgPath)
				require.NotNil(t, p.TypesInfo, p.PkgPath)
			}
		}

		res, err := Generate(Config{Dir: mod, Patterns: tc.patterns, Env: moduleEnv()})
		require.NoError(t, err)
		require.Empty(t, res.Errors(), "%v", tc.patterns)
		require.Len(t, res.Packages, tc.generated, "%v", tc.patterns)
		for _, p := range res.Packages {
			require.Len(t, p.Files, 1, p.PkgPath)
		}
	}
}
