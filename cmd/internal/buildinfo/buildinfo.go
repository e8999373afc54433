// Package buildinfo describes a build of wopr's binaries for their --version.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version describes this build of a binary from its build information: the
// module version ("(devel)" when built from a checkout rather than
// installed as a module at a version), the VCS revision, its commit time
// and whether the work tree had changes, and the Go version. go build
// stamps the VCS settings when it runs in a git checkout (not with
// -buildvcs=false).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module information)"
	}
	return describeBuild(bi)
}

func describeBuild(bi *debug.BuildInfo) string {
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	v := []string{bi.Main.Version}
	if v[0] == "" {
		v[0] = "(devel)"
	}
	if rev := vcs["vcs.revision"]; rev == "" {
		v = append(v, "revision unknown (built without VCS information)")
	} else {
		if t := vcs["vcs.time"]; t != "" {
			rev += " (" + t + ")"
		}
		v = append(v, "revision "+rev)
		if vcs["vcs.modified"] == "true" {
			v = append(v, "modified")
		}
	}
	return strings.Join(append(v, bi.GoVersion), ", ")
}
