package test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's cluster block works as written: its build line builds the
// binaries this package runs, and its commands, with the binaries, the
// port and the directories those of the test, count 4x4 on a cluster of
// processes. The server listens on loopback only.
func TestREADMEClusterBlock(t *testing.T) {
	runsBinaries(t)
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```sh\n(go build -o bin/ [^`]*)```").FindSubmatch(data)
	if block == nil {
		t.Fatal("README: no ```sh block starting with go build -o bin/")
	}
	lines := strings.Split(strings.TrimSpace(string(block[1])), "\n")
	if len(lines) != 5 {
		t.Fatalf("README's cluster block has %d lines, want 5 (build, nats-server, coordinator, worker, analyze):\n%s", len(lines), block[1])
	}
	build := strings.Fields(lines[0])
	for _, pkg := range []string{"./cmd/analyze", "./cmd/coordinator", "./cmd/worker", "github.com/nats-io/nats-server/v2"} {
		if !strings.Contains(lines[0], " "+pkg) {
			t.Errorf("the build line %q does not build %s", lines[0], pkg)
		}
	}
	if build[len(build)-1] == "" {
		t.Fatal("empty build line")
	}
	dir := t.TempDir()
	// command reads a line as the shell would (a comment and a final &
	// dropped): its binary and its arguments, with the test's directories.
	command := func(line string) (name string, args []string, background bool) {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		line, background = strings.CutSuffix(line, "&")
		line = strings.ReplaceAll(line, "/tmp/wopr", dir)
		f := strings.Fields(line)
		name, ok := strings.CutPrefix(f[0], "bin/")
		if !ok {
			t.Fatalf("README: %q does not run a binary of bin/", line)
		}
		return name, f[1:], background
	}
	name, args, bg := command(lines[1])
	if name != "nats-server" || !bg || !strings.Contains(lines[1], "-a 127.0.0.1") {
		t.Fatalf("README: %q: want nats-server on 127.0.0.1 in the background", lines[1])
	}
	// A free port instead of 4222, which the machine may be using.
	for i, a := range args {
		if a == "4222" {
			args[i] = "-1"
		}
	}
	portsDir := t.TempDir()
	url := natsURL(t, start(t, name, append(args, "--ports_file_dir", portsDir)...), portsDir)
	for _, line := range lines[2:4] {
		name, args, bg := command(strings.ReplaceAll(line, "nats://127.0.0.1:4222", url))
		if !bg || (name != "coordinator" && name != "worker") {
			t.Fatalf("README: %q: want the coordinator or a worker in the background", line)
		}
		start(t, name, args...)
	}
	name, args, bg = command(strings.ReplaceAll(lines[4], "nats://127.0.0.1:4222", url))
	if name != "analyze" || bg {
		t.Fatalf("README: %q: want analyze", lines[4])
	}
	out, err := run(t, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "15,038,733,958,272") || !strings.Contains(lines[4], "15,038,733,958,272") {
		t.Errorf("README's count: %q\ngave %s", lines[4], out)
	}
}
