package generator

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// overlay blanks every previous output in the directories the patterns
// name, so that a stale generated file (one calling a handler that was
// renamed, say) never keeps the package from loading and so from being
// regenerated.
//
// Directory patterns (., ./..., ./svc, /abs/dir) are walked directly. Import
// path patterns are first listed with go list, which does not type-check
// and so does not mind stale files.
func overlay(cfg *packages.Config, patterns []string) (map[string][]byte, error) {
	var dirs []string
	var importPaths []string
	for _, p := range patterns {
		base, recursive := strings.CutSuffix(p, "/...")
		if p == "..." {
			base, recursive = ".", true
		}
		if !isDirPattern(base) {
			importPaths = append(importPaths, p)
			continue
		}
		if !filepath.IsAbs(base) {
			base = filepath.Join(cfg.Dir, base)
		}
		if !recursive {
			dirs = append(dirs, base)
			continue
		}
		_ = filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			name := d.Name()
			if path != base && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != base {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module: ./... stops here too
				}
			}
			dirs = append(dirs, path)
			return nil
		})
	}
	if len(importPaths) > 0 {
		list := *cfg
		list.Mode = packages.NeedName | packages.NeedFiles
		pkgs, err := packages.Load(&list, importPaths...)
		if err != nil {
			return nil, err
		}
		for _, p := range pkgs {
			if p.Dir != "" {
				dirs = append(dirs, p.Dir)
			}
		}
	}
	over := map[string][]byte{}
	for _, dir := range dirs {
		for _, path := range generatedIn(dir) {
			if b, ok := blank(path); ok {
				over[path] = b
			}
		}
	}
	return over, nil
}

func isDirPattern(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || filepath.IsAbs(p)
}
