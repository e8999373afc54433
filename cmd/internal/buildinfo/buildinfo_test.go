package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	rev := "825b73f0a99fab3a7a4f3bf4bbf33fb8dd9c9743"
	for _, c := range []struct {
		version  string
		settings map[string]string
		want     string
	}{
		{"(devel)", nil, "(devel), revision unknown (built without VCS information), go1.26.8"},
		{"", nil, "(devel), revision unknown (built without VCS information), go1.26.8"},
		{"(devel)", map[string]string{"vcs": "git", "vcs.revision": rev, "vcs.time": "2026-12-01T13:24:00Z", "vcs.modified": "false"},
			"(devel), revision " + rev + " (2026-12-01T13:24:00Z), go1.26.8"},
		{"v0.0.0-20261201132400-825b73f0a99f+dirty", map[string]string{"vcs.revision": rev, "vcs.time": "2026-12-01T13:24:00Z", "vcs.modified": "true"},
			"v0.0.0-20261201132400-825b73f0a99f+dirty, revision " + rev + " (2026-12-01T13:24:00Z), modified, go1.26.8"},
		{"v1.2.0", map[string]string{"vcs.revision": rev}, "v1.2.0, revision " + rev + ", go1.26.8"},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/woprlabs/wopr", Version: c.version}}
		for k, v := range c.settings {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := describeBuild(bi); got != c.want {
			t.Errorf("describeBuild(%q, %v) = %q, want %q", c.version, c.settings, got, c.want)
		}
	}
}
