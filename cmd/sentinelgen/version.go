package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// modulePath is sentinelgen's module, found in the build information
// whether sentinelgen is the build's main module (go install) or a
// dependency of it (go tool, go run from a module that requires it).
const modulePath = "github.com/sentinelgen/sentinelgen"

// runVersion is `sentinelgen version`: the module version the binary was
// built from, as the go command recorded it, with the VCS revision of a
// development build, and the Go version.
func runVersion(env runEnv, args []string) error {
	if len(args) > 0 {
		fmt.Fprintln(env.stderr, "usage: sentinelgen version")
		return usageError{}
	}
	fmt.Fprintln(env.stdout, versionLine(debug.ReadBuildInfo()))
	return nil
}

func versionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "sentinelgen: no build information (built without module support)"
	}
	mod := &bi.Main
	if mod.Path != modulePath {
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				mod = d
			}
		}
	}
	v := mod.Version
	if v == "" {
		v = "(devel)"
	}
	if mod.Replace != nil {
		v += " => " + mod.Replace.Path
		if mod.Replace.Version != "" {
			v += " " + mod.Replace.Version
		}
	}
	if mod == &bi.Main {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			v += " rev " + rev[:min(len(rev), 12)]
			if modified == "true" {
				v += ", modified"
			}
		}
	}
	return strings.TrimSpace("sentinelgen " + v + " " + bi.GoVersion)
}
