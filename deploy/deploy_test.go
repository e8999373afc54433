// Package deploy_test checks the deployment files of deploy/ and the
// Dockerfile against the binaries they run: every YAML file parses, every
// flag and WOPR_ variable they give a wopr binary or nats-server is one
// that binary's --help lists, and the image's build script makes static
// binaries that run. No Docker engine, Kubernetes or systemd runs here:
// each file is checked as far as the tools that do run here can (helm,
// built from its Go module, renders the chart; systemd-analyze, where it is
// installed, verifies the units).
package deploy_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
)

var (
	// root is the repository's root.
	root string
	// bin holds analyze, coordinator and worker as deploy/build.sh makes
	// them, and nats-server built from the version in go.mod.
	bin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	root = filepath.Dir(filepath.Dir(file))
	dir, err := os.MkdirTemp("", "wopr-deploy")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = dir
	if msg, err := buildScript(root, dir); err != nil {
		fmt.Fprintf(os.Stderr, "deploy/build.sh: %v\n%s", err, msg)
		return 1
	}
	build := exec.Command("go", "build", "-o", dir, "github.com/nats-io/nats-server/v2")
	build.Dir = root
	if msg, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build nats-server: %v\n%s", err, msg)
		return 1
	}
	return m.Run()
}

// buildScript runs deploy/build.sh in src, as the image's build stage
// does, writing the binaries into out.
func buildScript(src, out string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(root, "deploy", "build.sh"), out)
	cmd.Dir = src
	return cmd.CombinedOutput()
}

// binary returns the path of a binary that TestMain built. go test caches
// this package's results by the files the tests open, and the binaries'
// sources are not among them: the first call looks at every one of them,
// so that a change to a flag runs the tests again.
func binary(name string) string {
	sourcesSeen.Do(func() {
		for _, dir := range []string{"cmd", "pkg"} {
			_ = filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
					_, _ = os.Stat(p)
				}
				return nil
			})
		}
		_, _ = os.Stat(filepath.Join(root, "go.mod"))
		_, _ = os.Stat(filepath.Join(root, "go.sum"))
	})
	return filepath.Join(bin, name)
}

var sourcesSeen sync.Once

// usage is what a command accepts, as its --help lists it.
type usage struct {
	cmd   string          // the command line that printed it, for messages
	flags map[string]bool // flag names, without dashes: true when the flag takes a value
	env   map[string]bool // environment variables
}

var (
	usagesMu sync.Mutex
	usages   = map[string]usage{}
)

// help returns what the binary name (analyze, coordinator, worker or
// nats-server) accepts, with analyze's subcommands in sub.
func help(t *testing.T, name string, sub ...string) usage {
	t.Helper()
	key := strings.Join(append([]string{name}, sub...), " ")
	usagesMu.Lock()
	defer usagesMu.Unlock()
	if u, ok := usages[key]; ok {
		return u
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(binary(name), append(sub, "--help")...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s --help: %v\n%s%s", key, err, stdout.Bytes(), stderr.Bytes())
	}
	// nats-server prints its usage on stderr.
	u := parseHelp(stdout.String() + stderr.String())
	u.cmd = key
	if len(u.flags) == 0 {
		t.Fatalf("%s --help lists no flags:\n%s%s", key, stdout.Bytes(), stderr.Bytes())
	}
	usages[key] = u
	return u
}

var (
	flagToken = regexp.MustCompile(`^-{1,2}([A-Za-z0-9][A-Za-z0-9_-]*)$`)
	envList   = regexp.MustCompile(`\[\$[A-Z0-9_, $]+\]$`)
	envName   = regexp.MustCompile(`\$([A-Z][A-Z0-9_]*)`)
)

// parseHelp reads the flags of a usage text, urfave/cli's (from its
// OPTIONS: heading on, "--concurrency N, -c N  N task slots [$ENV]") or
// nats-server's ("-a, --addr, --net <host>   Bind to host address"): on
// each line that starts with a dash, the names and placeholders up to the
// first two spaces (a flag takes a value when its line has a placeholder),
// and the environment variables in the brackets that end the line. A line
// of names alone goes on into the next line (nats-server's "-n, --name",
// then "--server_name <server_name>  Server name").
func parseHelp(text string) usage {
	u := usage{flags: map[string]bool{}, env: map[string]bool{}}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasSuffix(strings.TrimSpace(l), "OPTIONS:") {
			lines = lines[i+1:]
			break
		}
	}
	var pending []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "-") {
			pending = nil
			continue
		}
		names, desc, _ := strings.Cut(l, "  ")
		flags, takes := pending, false
		for _, f := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == ' ' }) {
			if m := flagToken.FindStringSubmatch(f); m != nil {
				flags = append(flags, m[1])
			} else {
				takes = true
			}
		}
		if desc == "" && !takes {
			pending = flags
			continue
		}
		pending = nil
		for _, f := range flags {
			u.flags[f] = takes
		}
		for _, m := range envName.FindAllStringSubmatch(envList.FindString(strings.TrimSpace(desc)), -1) {
			u.env[m[1]] = true
		}
	}
	return u
}

// names lists a set's members in order, for messages.
func names(set map[string]bool) string {
	var s []string
	for k := range set {
		s = append(s, k)
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}

// parseArgs reads the flags of args, a command line after the command's
// name (and subcommands), against u: the values of the flags it accepts by
// name (a bool flag's value is ""), and the flags it does not accept
// (with the values of those given as --name=value, for further checks). A
// flag is --name, -name, --name=value or --name value, as Go's flag
// package (under urfave/cli and nats-server) reads them.
func parseArgs(args []string, u usage) (vals map[string]string, unknown []string) {
	vals = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue // an argument
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takes, ok := u.flags[name]
		if !ok {
			unknown = append(unknown, "--"+name)
			if hasVal {
				vals[name] = val // for the checks of its value
			}
			continue
		}
		// nats-server lists its bool flags with a placeholder
		// (--no_advertise <bool>): a flag that follows is not a value.
		if takes && !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			i++
			val = args[i]
		}
		vals[name] = val
	}
	return vals, unknown
}

// checkCommand checks a command line that runs a wopr binary or
// nats-server (argv[0] or its base name) and returns its flags' values:
// the binary must be one of those, and each flag one it accepts. analyze's
// subcommands are the arguments before its first flag.
func checkCommand(t *testing.T, where string, argv []string) (name string, vals map[string]string, u usage) {
	t.Helper()
	if len(argv) == 0 {
		t.Errorf("%s: no command", where)
		return "", nil, usage{}
	}
	name = filepath.Base(argv[0])
	args := argv[1:]
	switch name {
	case "coordinator", "worker", "nats-server":
		u = help(t, name)
	case "analyze":
		n := 0
		for n < len(args) && !strings.HasPrefix(args[n], "-") {
			n++
		}
		u = help(t, name, args[:n]...)
		args = args[n:]
	default:
		t.Errorf("%s: runs %q, want analyze, coordinator, worker or nats-server", where, argv[0])
		return name, nil, usage{}
	}
	vals, unknown := parseArgs(args, u)
	for _, f := range unknown {
		t.Errorf("%s: %s does not accept %s (its --help lists %s)", where, u.cmd, f, names(u.flags))
	}
	return name, vals, u
}

// checkEnv checks that u accepts the environment variables env.
func checkEnv(t *testing.T, where string, u usage, env ...string) {
	t.Helper()
	for _, e := range env {
		if !u.env[e] {
			t.Errorf("%s: %s does not read %s (its --help lists %s)", where, u.cmd, e, names(u.env))
		}
	}
}

var woprVar = regexp.MustCompile(`\bWOPR_[A-Z0-9_]+\b`)

// checkWOPRVars checks every WOPR_ name in a file, comments included (they
// show options to uncomment), against the variables the binaries read.
func checkWOPRVars(t *testing.T, file string, text string) {
	t.Helper()
	all := map[string]bool{}
	for _, u := range []usage{help(t, "coordinator"), help(t, "worker"), help(t, "analyze", "mnk", "count")} {
		for e := range u.env {
			all[e] = true
		}
	}
	seen := map[string]bool{}
	for _, e := range woprVar.FindAllString(text, -1) {
		if !all[e] && !seen[e] {
			t.Errorf("%s names %s, which no wopr binary reads (they read %s)", file, e, names(all))
		}
		seen[e] = true
	}
}

// readFile returns a file of the repository, by its path from the root.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every YAML file of deploy/ parses, each of its documents; the chart's
// templates are not YAML until helm renders them (TestHelmChart).
func TestYAMLParses(t *testing.T) {
	want := []string{"compose.yaml", "prometheus.yml", "helm/nats-values.yaml", "helm/wopr/Chart.yaml", "helm/wopr/values.yaml"}
	var parsed []string
	dir := filepath.Join(root, "deploy")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "templates" {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(p); d.IsDir() || ext != ".yaml" && ext != ".yml" {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		parsed = append(parsed, filepath.ToSlash(rel))
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc yaml.Node
			if err := dec.Decode(&doc); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Errorf("%s: %v", p, err)
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !slices.Contains(parsed, w) {
			t.Errorf("deploy/%s was not parsed (parsed %v)", w, parsed)
		}
	}
}

// deploy/local-cluster.sh starts its processes with flags they accept.
func TestLocalCluster(t *testing.T) {
	const file = "deploy/local-cluster.sh"
	n := 0
	for i, l := range strings.Split(string(readFile(t, file)), "\n") {
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(l), "&"))
		if len(f) == 0 || !strings.HasPrefix(f[0], "bin/") {
			continue
		}
		n++
		for j := range f {
			f[j] = strings.Trim(f[j], `"`)
		}
		checkCommand(t, fmt.Sprintf("%s:%d", file, i+1), f)
	}
	if n != 3 {
		t.Errorf("%s: %d commands start with bin/, want 3 (nats-server, coordinator, worker)", file, n)
	}
}
