package generator

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// buildConfig is one build configuration of a package: the environment
// and -tags the go command is run with.
type buildConfig struct {
	goos, goarch, tags string
}

func (c buildConfig) String() string {
	s := c.goos + "/" + c.goarch
	if c.tags != "" {
		s += " -tags " + c.tags
	}
	return s
}

// namedConfigs are the build configurations the .go files of a golden
// case name, by file name (x_windows.go) or build constraint: each
// system and architecture named, each with the host's other (linux,
// amd64), each with no tag and with each other tag named. A "unix"
// constraint names linux and darwin, and windows as the system that is
// not one. It returns nil when the files name nothing but the host's
// configuration, which the golden test vets already.
func namedConfigs(t testing.TB, files []txtar.File) []buildConfig {
	oses, arches, tags := []string{"linux"}, []string{"amd64"}, []string{""}
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			continue // error cases are not built
		}
		x := fileConstraint(f.Name, parsed)
		if x == nil {
			continue
		}
		collectTags(x, func(tag string) {
			switch {
			case tag == "unix":
				oses = appendNew(appendNew(oses, "darwin"), "windows")
			case knownOS[tag]:
				oses = appendNew(oses, tag)
			case knownArch[tag]:
				arches = appendNew(arches, tag)
			case tag == "cgo" || tag == "ignore" || strings.HasPrefix(tag, "go1."):
			default:
				tags = appendNew(tags, tag)
			}
		})
	}
	valid := validPorts(t)
	var out []buildConfig
	for _, goos := range oses {
		for _, goarch := range arches {
			if !valid[goos+"/"+goarch] {
				continue
			}
			for _, tag := range tags {
				out = append(out, buildConfig{goos, goarch, tag})
			}
		}
	}
	if len(out) == 1 {
		return nil
	}
	return out
}

var (
	portsOnce sync.Once
	ports     map[string]bool
)

// validPorts are the GOOS/GOARCH pairs the go command knows.
func validPorts(t testing.TB) map[string]bool {
	portsOnce.Do(func() {
		out, err := exec.Command("go", "tool", "dist", "list").Output()
		require.NoError(t, err)
		ports = set(strings.Fields(string(out))...)
	})
	return ports
}

// buildEveryConfig builds and vets, in module mod, each case package
// under every configuration its files name (namedConfigs): the go
// command lists the packages with files in that configuration, then
// builds and vets them with that environment. Packages are grouped by
// configuration, so that each configuration costs one go build and one
// go vet.
func buildEveryConfig(t *testing.T, mod string, cases []*goldenCase) {
	byConfig := map[buildConfig][]string{}
	for _, c := range cases {
		if c.hasErrs {
			continue
		}
		for _, cfg := range namedConfigs(t, c.inputs) {
			byConfig[cfg] = append(byConfig[cfg], "./"+c.name)
		}
	}
	configs := make([]buildConfig, 0, len(byConfig))
	for cfg := range byConfig {
		configs = append(configs, cfg)
	}
	sort.Slice(configs, func(i, j int) bool { return configs[i].String() < configs[j].String() })
	for _, cfg := range configs {
		env := append(moduleEnv(), "GOOS="+cfg.goos, "GOARCH="+cfg.goarch, "CGO_ENABLED=0")
		run := func(args ...string) string {
			if cfg.tags != "" {
				args = append(args[:1:1], append([]string{"-tags", cfg.tags}, args[1:]...)...)
			}
			cmd := exec.Command("go", args...)
			cmd.Dir, cmd.Env = mod, env
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%v: go %v:\n%s", cfg, strings.Join(args, " "), out)
			return string(out)
		}
		listed := run(append([]string{"list", "-e", "-f", "{{if .GoFiles}}{{.ImportPath}}{{end}}"}, byConfig[cfg]...)...)
		var pkgs []string
		for _, path := range strings.Fields(listed) {
			pkgs = append(pkgs, "./"+filepath.Base(path))
		}
		if len(pkgs) == 0 {
			continue
		}
		run(append([]string{"build"}, pkgs...)...)
		run(append([]string{"vet"}, pkgs...)...)
	}
}

// TestNamedConfigs pins which configurations a case's files name.
func TestNamedConfigs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"host only", map[string]string{"a.go": "package a\n"}, nil},
		{"a system by file name", map[string]string{"a_windows.go": "package a\n"},
			[]string{"linux/amd64", "windows/amd64"}},
		{"unix names a system that is not", map[string]string{"a.go": "//go:build unix\n\npackage a\n"},
			[]string{"linux/amd64", "darwin/amd64", "windows/amd64"}},
		{"a constraint in the package doc counts", map[string]string{"a.go": "// Package a.\n//go:build windows\npackage a\n"},
			[]string{"linux/amd64", "windows/amd64"}},
		{"an architecture and a tag", map[string]string{"a_386.go": "//go:build purego\n\npackage a\n"},
			[]string{"linux/amd64", "linux/amd64 -tags purego", "linux/386", "linux/386 -tags purego"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var files []txtar.File
			for name, src := range tc.files {
				files = append(files, txtar.File{Name: name, Data: []byte(src)})
			}
			var got []string
			for _, c := range namedConfigs(t, files) {
				got = append(got, c.String())
			}
			require.Equal(t, tc.want, got)
		})
	}
}
