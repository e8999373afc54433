package deploy_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// directive is a line of a unit file: Key=value in a section, or a
// commented one (#Key=value), an option to uncomment.
type directive struct {
	line           int
	section, key   string
	value          string
	commented      bool
	unitFile, text string
}

var commentedDirective = regexp.MustCompile(`^#([A-Z][A-Za-z]+)=(.*)$`)

// parseUnit reads a unit file: sections, Key=value lines (continued by a
// trailing backslash) and comments; any other line is an error.
func parseUnit(t *testing.T, file string, b []byte) []directive {
	t.Helper()
	var ds []directive
	section := ""
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		start := i
		l := strings.TrimSpace(lines[i])
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		switch {
		case l == "":
		case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			section = l[1 : len(l)-1]
		case commentedDirective.MatchString(l):
			m := commentedDirective.FindStringSubmatch(l)
			ds = append(ds, directive{line: start + 1, section: section, key: m[1], value: m[2], commented: true, unitFile: file, text: l})
		case strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
		default:
			k, v, ok := strings.Cut(l, "=")
			if !ok || section == "" {
				t.Errorf("%s:%d: %q is not Key=value in a section", file, start+1, l)
				continue
			}
			ds = append(ds, directive{line: start + 1, section: section, key: strings.TrimSpace(k), value: strings.TrimSpace(v), unitFile: file, text: l})
		}
	}
	return ds
}

// knownDirectives are the settings the units may use, by section: a
// misspelt one is an error here, whether or not systemd-analyze is
// installed to say so too.
var knownDirectives = map[string][]string{
	"Unit": {"Description", "Documentation", "Wants", "Requires", "After", "Before", "BindsTo", "PartOf",
		"Conflicts", "StartLimitIntervalSec", "StartLimitBurst"},
	"Service": {"Type", "ExecStart", "ExecStartPre", "ExecStop", "ExecReload", "Restart", "RestartSec",
		"KillSignal", "KillMode", "TimeoutStopSec", "TimeoutStartSec", "EnvironmentFile", "Environment",
		"LoadCredential", "StateDirectory", "CacheDirectory", "RuntimeDirectory", "WorkingDirectory",
		"DynamicUser", "ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateDevices", "PrivateUsers",
		"PrivateMounts", "NoNewPrivileges", "CapabilityBoundingSet", "AmbientCapabilities",
		"ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups",
		"ProtectClock", "ProtectHostname", "ProtectProc", "ProcSubset", "RestrictAddressFamilies",
		"RestrictNamespaces", "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality",
		"MemoryDenyWriteExecute", "SystemCallArchitectures", "SystemCallFilter", "SystemCallErrorNumber",
		"UMask", "LimitNOFILE", "ReadWritePaths", "ReadOnlyPaths"},
	"Install": {"WantedBy", "RequiredBy", "Alias", "DefaultInstance"},
}

// values returns the values of a unit's key, those commented out too when
// commented is true.
func values(ds []directive, key string, commented bool) []string {
	var vs []string
	for _, d := range ds {
		if d.key == key && (commented || !d.commented) {
			vs = append(vs, d.value)
		}
	}
	return vs
}

// unitDuration reads a systemd time span: "45s", "2min", or seconds alone.
func unitDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	return time.ParseDuration(strings.Replace(s, "min", "m", 1))
}

// The units of deploy/systemd: their settings are known ones; the wopr
// units run their binary with flags it accepts, hardened, on a state
// directory, stopped with SIGTERM after a grace period longer than the
// worker's; the variables they and wopr.env set are ones the binaries read.
// systemd-analyze verify and security check them too, in a subtest that
// is skipped, saying so, where it is not installed.
func TestSystemdUnits(t *testing.T) {
	units := map[string][]directive{}
	for _, name := range []string{"wopr-coordinator.service", "wopr-worker@.service", "nats-server.service"} {
		file := "deploy/systemd/" + name
		ds := parseUnit(t, file, readFile(t, file))
		units[name] = ds
		for _, d := range ds {
			if !slices.Contains(knownDirectives[d.section], d.key) {
				t.Errorf("%s:%d: %s= in [%s] is not a setting this test knows", file, d.line, d.key, d.section)
			}
		}
		start := values(ds, "ExecStart", false)
		if len(start) != 1 {
			t.Errorf("%s: ExecStart= %q, want one", file, start)
			continue
		}
		argv := strings.Fields(start[0])
		if !strings.HasPrefix(argv[0], "/usr/local/bin/") {
			t.Errorf("%s: ExecStart= runs %s, want a binary in /usr/local/bin", file, argv[0])
		}
		bin, vals, u := checkCommand(t, file, argv)
		if bin == "nats-server" {
			checkNATSUnit(t, file, ds, vals)
			continue
		}

		for key, want := range map[string]string{
			"DynamicUser": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
			"NoNewPrivileges": "yes", "Restart": "on-failure", "KillSignal": "SIGTERM",
		} {
			if got := values(ds, key, false); len(got) != 1 || got[0] != want {
				t.Errorf("%s: %s= %q, want %s", file, key, got, want)
			}
		}
		if !slices.Contains(values(ds, "EnvironmentFile", false), "-/etc/wopr/wopr.env") {
			t.Errorf("%s: no EnvironmentFile=-/etc/wopr/wopr.env", file)
		}
		state := values(ds, "StateDirectory", false)
		if len(state) != 1 || !strings.HasPrefix(state[0], "wopr/") || vals["data"] != "%S/"+state[0] {
			t.Errorf("%s: StateDirectory= %q, --data %q: want wopr/... and --data %%S/ and it", file, state, vals["data"])
		}
		if strings.Contains(name, "@") && (len(state) != 1 || !strings.Contains(state[0], "%i")) {
			t.Errorf("%s: StateDirectory= %q does not name the instance (%%i): instances would share a store", file, state)
		}
		stop, err := unitDuration(strings.Join(values(ds, "TimeoutStopSec", false), ""))
		var want time.Duration
		if bin == "worker" {
			want, _ = time.ParseDuration(vals["grace"]) // "" (the default) fails below
			if vals["grace"] == "" {
				t.Errorf("%s: no --grace: give it, to compare with TimeoutStopSec=", file)
			}
		} else {
			want = 10 * time.Second // the coordinator's wait for its loops
		}
		if err != nil || stop <= want {
			t.Errorf("%s: TimeoutStopSec= %q: want more than %v", file, values(ds, "TimeoutStopSec", false), want)
		}
		var env []string
		for _, e := range values(ds, "Environment", true) {
			k, _, _ := strings.Cut(e, "=")
			env = append(env, k)
		}
		checkEnv(t, file, u, env...)
		checkWOPRVars(t, file, string(readFile(t, file)))
	}

	const envFile = "deploy/systemd/wopr.env"
	text := readFile(t, envFile)
	checkWOPRVars(t, envFile, string(text))
	for _, m := range regexp.MustCompile(`(?m)^#?(WOPR_[A-Z0-9_]+)=`).FindAllSubmatch(text, -1) {
		for _, bin := range []string{"coordinator", "worker"} {
			checkEnv(t, envFile, help(t, bin), string(m[1]))
		}
	}

	t.Run("systemd-analyze", func(t *testing.T) {
		if _, err := exec.LookPath("systemd-analyze"); err != nil {
			t.Skipf("systemd-analyze is not installed (%v): the units were checked by the rules above only; .ci/run installs it", err)
		}
		systemdAnalyze(t, units)
	})
}

// checkNATSUnit checks the nats-server unit: it runs deploy/nats-node.conf,
// whose store_dir is its state directory.
func checkNATSUnit(t *testing.T, file string, ds []directive, vals map[string]string) {
	t.Helper()
	conf := vals["config"]
	if filepath.Base(conf) != "nats-node.conf" {
		t.Errorf("%s: --config %q, want deploy/nats-node.conf installed", file, conf)
	}
	store := regexp.MustCompile(`(?m)^\s*store_dir:\s*(\S+)`).FindSubmatch(readFile(t, "deploy/nats-node.conf"))
	state := values(ds, "StateDirectory", false)
	if store == nil || len(state) != 1 || string(store[1]) != "/var/lib/"+state[0] {
		t.Errorf("%s: StateDirectory= %q; deploy/nats-node.conf's store_dir %q: want the same directory", file, state, store)
	}
}

// systemdAnalyze runs systemd-analyze verify on the units as they are and
// with their commented options uncommented, with their binaries where
// TestMain built them (verify checks that they are executable), and
// systemd-analyze security, which rates their hardening.
func systemdAnalyze(t *testing.T, units map[string][]directive) {
	for _, uncomment := range []bool{false, true} {
		dir := t.TempDir()
		for name := range units {
			b := readFile(t, "deploy/systemd/"+name)
			b = bytes.ReplaceAll(b, []byte("/usr/local/bin/"), []byte(bin+"/"))
			if uncomment {
				b = regexp.MustCompile(`(?m)^#([A-Z][A-Za-z]+=)`).ReplaceAll(b, []byte("$1"))
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"./wopr-coordinator.service", "./wopr-worker@1.service", "./nats-server.service"}
		cmd := exec.Command("systemd-analyze", append([]string{"verify"}, args...)...)
		cmd.Dir = dir
		// verify exits 0 on unknown settings and bad values, and says
		// so: any output is a failure.
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("systemd-analyze verify (options uncommented: %v): %v\n%s", uncomment, err, out)
		}
		// The threshold is on a scale of 100: 20 is the exposure that
		// the report prints as 2.0, of 10 (the units rate 1.1 to 1.2).
		cmd = exec.Command("systemd-analyze", append([]string{"security", "--offline=yes", "--threshold=20"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("systemd-analyze security --threshold=20: %v: an exposure above 2.0 (lower is safer)\n%s", err, out)
		}
	}
}
