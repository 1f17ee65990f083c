package generator

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// TestRealCode generates over copies of real code bases from the module
// cache, not written for sentinelgen: a directive is inserted above every
// function and method (with a default fallback, written beside it, where
// the function has no error result) and a //sentinel:decorate above every
// interface type, the generator runs, and the result must build and vet,
// test files included. A refusal the generator explains with "add
// wrapper=Name" is answered as a user would, with a wrapper= name, one
// that names a method without an error result with exclude=, one that
// says an interface cannot be implemented elsewhere by dropping the
// directive, and the run repeated; any other problem fails the test. So
// the next class of bug that real code finds shows up here.
//
// The modules: x/sync; fsnotify (a backend per system, built here for
// windows and darwin too); gobreaker/v2 and atomic (generic types and
// their methods); zap (generic functions without an error result, a
// build-tagged file, test doubles embedding the types they fake).
func TestRealCode(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		path string
		goos []string // other systems to vet the result for
	}{
		{"golang.org/x/sync", nil},
		{"github.com/fsnotify/fsnotify", []string{"windows", "darwin"}},
		{"github.com/sony/gobreaker/v2", nil},
		{"go.uber.org/atomic", []string{"windows"}},
		{"go.uber.org/zap", nil},
	} {
		t.Run(m.path, func(t *testing.T) {
			t.Parallel() // each in a copy of its own; most of the time is go vet's
			generateOverModule(t, m.path, m.goos)
		})
	}
}

// generateOverModule is TestRealCode on one module of the module cache.
func generateOverModule(t *testing.T, mod string, goos []string) {
	start := time.Now()
	dir := copyModule(t, mod)
	t.Logf("copied in %v", time.Since(start))
	ans := &answers{renamed: map[string]bool{}, exclude: map[string][]string{}, skip: map[string]bool{}}
	var res *Result
	for round := 0; ; round++ {
		n := annotateModule(t, dir, nil, ans)
		var err error
		res, err = Generate(Config{Dir: dir, Patterns: []string{"./..."}, Env: moduleEnv()})
		require.NoError(t, err)
		t.Logf("round %d: %d directives; load %v, generate %v", round, n, res.Timing.Load, res.Timing.Generate)
		errs := res.Errors()
		if len(errs) == 0 {
			break
		}
		require.Less(t, round, 3, "still refused after the refusals were answered:\n%v", errs)
		for _, e := range errs {
			ans.answer(t, e)
		}
		t.Logf("%d refusals answered", len(errs))
	}
	files, decorated := 0, 0
	for _, p := range res.Packages {
		for _, f := range p.Files {
			writeFile(t, f.Path, f.Content)
			files++
			decorated += bytes.Count(f.Content, []byte(" returns next, protected: "))
		}
	}
	require.NotZero(t, files)
	t.Logf("%d interfaces decorated", decorated)

	start = time.Now()
	cmd := exec.Command("go", "vet", "./...") // builds everything, tests included
	cmd.Dir, cmd.Env = dir, moduleEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go vet:\n%s", out)
	t.Logf("%d outputs; go vet %v", files, time.Since(start))
	for _, system := range goos {
		cmd := exec.Command("go", "vet", "./...")
		cmd.Dir, cmd.Env = dir, append(moduleEnv(), "GOOS="+system)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "GOOS=%s go vet:\n%s", system, out)
	}
}

// nameClash matches the refusals a wrapper= name answers.
var nameClash = regexp.MustCompile(`add wrapper=Name|^wrapper \S+: (package \S+ already declares|\S+ already has a)`)

// The refusals of a //sentinel:decorate that exclude= answers (a method
// without an error result) and those that dropping the directive answers
// (an interface nobody outside its package can implement, or one left
// with nothing to protect).
var (
	noErrorResult = regexp.MustCompile(`^(\S+)\.(\S+) has no error result to return a block in`)
	notDecorable  = regexp.MustCompile(`^//sentinel:decorate: (\S+?)(?:'s method \S+ uses | has the unexported method | is a constraint | has no methods)|exclude= passes every method of (\S+) through`)
)

// answers are the user's answers to the refusals of earlier rounds.
type answers struct {
	renamed map[string]bool     // file:line of directives given wrapper=
	exclude map[string][]string // dir/Type of a decorated interface: exclude=
	skip    map[string]bool     // dir/Type of an interface left undecorated
}

func (a *answers) answer(t *testing.T, e *annotations.Error) {
	t.Helper()
	dir := filepath.Dir(e.Pos.Filename)
	if m := noErrorResult.FindStringSubmatch(e.Msg); m != nil {
		key := dir + "/" + m[1]
		a.exclude[key] = appendNew(a.exclude[key], m[2])
		return
	}
	if m := notDecorable.FindStringSubmatch(e.Msg); m != nil {
		a.skip[dir+"/"+m[1]+m[2]] = true
		return
	}
	require.Regexp(t, nameClash, e.Msg, "only name clashes and a decorated interface's refusals are expected: %v", e)
	a.renamed[fmt.Sprintf("%s:%d", e.Pos.Filename, e.Pos.Line)] = true
}

// copyModule copies mod, as the main module requires it, out of the module
// cache into a writable directory whose go.mod also requires (and
// replaces) this repository, so that generated code builds against the
// runtime under test.
func copyModule(t *testing.T, mod string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod)
	cmd.Env = moduleEnv()
	out, err := cmd.Output()
	require.NoError(t, err, "go list -m %s", mod)
	src := strings.TrimSpace(string(out))
	require.NotEmpty(t, src, "%s is not in the module cache", mod)
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	require.NoError(t, err)
	// The copy's own requirements are left to this repository's go.mod
	// (the versions in the module cache): the copy's may be older ones.
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	gomod := "module " + mod + "\n\ngo 1.26\n\nrequire github.com/sentinelgen/sentinelgen v0.0.0\n\nreplace github.com/sentinelgen/sentinelgen => " + repo + "\n"
	writeFile(t, filepath.Join(dst, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	writeFile(t, filepath.Join(dst, "go.sum"), sum)
	return dst
}

// annotateModule writes every non-test .go file of dir (of the package
// directories pkgs, relative to dir, when there are some) from its
// pristine copy (kept beside it as .orig) with a directive above each
// function and method. It returns how many it inserted.
func annotateModule(t *testing.T, dir string, pkgs []string, ans *answers) int {
	t.Helper()
	total := 0
	df := 0 // default fallbacks, numbered across the module
	only := map[string]bool{}
	for _, p := range pkgs {
		only[filepath.Join(dir, p)] = true
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.Contains(path, string(filepath.Separator)+"testdata"+string(filepath.Separator)) ||
			(len(only) > 0 && !only[filepath.Dir(path)]) {
			return err
		}
		orig := path + ".orig"
		src, err := os.ReadFile(orig)
		if os.IsNotExist(err) {
			if src, err = os.ReadFile(path); err != nil {
				return err
			}
			if bytes.HasPrefix(src, []byte(Header)) {
				return nil // an output of an earlier round
			}
			err = os.WriteFile(orig, src, 0o644)
		}
		if err != nil {
			return err
		}
		annotated, n := annotateFile(t, path, src, ans, &df)
		total += n
		return os.WriteFile(path, annotated, 0o644)
	})
	require.NoError(t, err)
	return total
}

// annotateFile inserts the directives into one file's source. A function
// without an error result gets defaultFallback=sentinelDF۰N, written at the
// end of the file with the function's type parameters (or receiver) and
// results as written; exported functions, and those renamed after a
// refusal, get wrapper=Name۰sentinel or Name۰<line>. An interface type
// gets //sentinel:decorate, with the answers of earlier rounds.
func annotateFile(t *testing.T, path string, src []byte, ans *answers, df *int) ([]byte, int) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	require.NoError(t, err)
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}

	type insert struct {
		off  int
		line string
	}
	var inserts []insert
	var tail strings.Builder
	for _, decl := range f.Decls {
		if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				key := filepath.Dir(path) + "/" + ts.Name.Name
				if _, ok := ts.Type.(*ast.InterfaceType); !ok || ans.skip[key] {
					continue
				}
				at := ts.Pos()
				if !gd.Lparen.IsValid() {
					at = gd.Pos()
				}
				pos := fset.Position(at)
				directive := "//sentinel:decorate"
				if ans.renamed[fmt.Sprintf("%s:%d", path, pos.Line+len(inserts))] {
					directive += " wrapper=Protect۰" + ts.Name.Name
				}
				if ex := ans.exclude[key]; len(ex) > 0 {
					directive += " exclude=" + strings.Join(ex, ",")
				}
				inserts = append(inserts, insert{off: pos.Offset - (pos.Column - 1), line: directive + "\n"})
			}
			continue
		}
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || fn.Name.Name == "_" || fn.Name.Name == "init" || (fn.Recv == nil && fn.Name.Name == "main") {
			continue
		}
		pos := fset.Position(fn.Pos())
		// The directive's line, once the ones above it are inserted.
		line := pos.Line + len(inserts)
		directive := "//sentinel:resource"
		first, _ := utf8.DecodeRuneInString(fn.Name.Name)
		upper := strings.ToUpper(fn.Name.Name[:1]) + fn.Name.Name[1:]
		switch {
		case ans.renamed[fmt.Sprintf("%s:%d", path, line)]:
			directive += " wrapper=" + upper + "۰" + strconv.Itoa(line)
		case fn.Name.IsExported() || !unicode.IsLower(first):
			directive += " wrapper=" + upper + "۰sentinel"
		}
		if !returnsError(fn) {
			*df++
			name := "sentinelDF۰" + strconv.Itoa(*df)
			directive += " defaultFallback=" + name
			results := ""
			if fn.Type.Results != nil {
				results = " " + text(fn.Type.Results)
				if len(fn.Type.Results.List) == 1 && len(fn.Type.Results.List[0].Names) == 0 && !strings.HasPrefix(results, " (") {
					results = " (" + text(fn.Type.Results) + ")"
				}
			}
			recv, tparams := "", ""
			if fn.Recv != nil {
				recv = "(" + text(fn.Recv.List[0].Type) + ") "
				if len(fn.Recv.List[0].Names) > 0 {
					recv = "(" + fn.Recv.List[0].Names[0].Name + " " + text(fn.Recv.List[0].Type) + ") "
				}
			}
			if fn.Type.TypeParams != nil {
				tparams = text(fn.Type.TypeParams) // the list's brackets included
			}
			fmt.Fprintf(&tail, "\nfunc %s%s%s()%s { panic(%q) }\n", recv, name, tparams, results, "blocked")
		}
		inserts = append(inserts, insert{off: pos.Offset - (pos.Column - 1), line: directive + "\n"})
	}
	sort.Slice(inserts, func(i, j int) bool { return inserts[i].off < inserts[j].off })
	var out bytes.Buffer
	last := 0
	for _, in := range inserts {
		out.Write(src[last:in.off])
		out.WriteString(in.line)
		last = in.off
	}
	out.Write(src[last:])
	out.WriteString(tail.String())
	return out.Bytes(), len(inserts)
}

// returnsError reports whether fn's last result is written error.
func returnsError(fn *ast.FuncDecl) bool {
	rs := fn.Type.Results
	if rs == nil || len(rs.List) == 0 {
		return false
	}
	id, ok := rs.List[len(rs.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}
