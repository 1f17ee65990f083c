package generator

import (
	"time"

	"github.com/sentinelgen/sentinelgen/annotations"
)

// Config says what to generate. The zero value generates for the package
// in the current directory.
type Config struct {
	Dir      string   // directory the patterns are relative to; "" is the current one
	Patterns []string // go list patterns; none means "."
	Tags     []string // build tags for loading (-tags)
	Env      []string // environment of go list; nil inherits the process's
}

// File is one generated file.
type File struct {
	Path    string // absolute path of the output
	Source  string // absolute path of the annotated file it wraps
	Content []byte
}

// Package is what generation produced for one package. Files and Orphans
// are empty when Errors is not: a package with a problem gets no output.
type Package struct {
	PkgPath string
	Dir     string
	Files   []File   // outputs, sorted by path
	Orphans []string // previous outputs whose source lost its directives or was deleted
	// Resources are the resource names the package's directives declare,
	// in source order (for checking rule files against the code).
	Resources []string
	Errors    annotations.ErrorList
}

// Result is a whole run.
type Result struct {
	Packages []*Package
	Timing   Timing
}

// Timing splits a run's time between loading (go list, parsing and
// type-checking, in packages.Load) and sentinelgen's own work.
type Timing struct {
	Load     time.Duration
	Generate time.Duration
}

// Errors returns every problem of the run, sorted by position.
func (r *Result) Errors() annotations.ErrorList {
	var all annotations.ErrorList
	for _, p := range r.Packages {
		all = append(all, p.Errors...)
	}
	all.Sort()
	return all
}
