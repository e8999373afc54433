package deploy_test

import (
	"bytes"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// instruction is a line of a Dockerfile, continuation lines joined.
type instruction struct {
	line int
	op   string // FROM, RUN, ... in upper case
	args string
}

// stage is a stage of a Dockerfile: FROM image [AS name] and what follows.
type stage struct {
	image, name string
	body        []instruction
}

func parseDockerfile(b []byte) []stage {
	var stages []stage
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		start := i
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		op, args, _ := strings.Cut(l, " ")
		in := instruction{line: start + 1, op: strings.ToUpper(op), args: strings.TrimSpace(args)}
		if in.op == "FROM" {
			f := strings.Fields(in.args)
			s := stage{image: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) > 0 {
			stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
		}
	}
	return stages
}

// The Dockerfile builds with deploy/build.sh in a Go stage of go.mod's
// version, and copies the three binaries into a small image that runs as
// a user other than root.
func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(readFile(t, "Dockerfile"))
	if len(stages) != 2 {
		t.Fatalf("Dockerfile: %d stages, want 2 (build, runtime)", len(stages))
	}
	build, final := stages[0], stages[1]
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(readFile(t, "go.mod"))
	if goVersion == nil {
		t.Fatal("go.mod names no go version")
	}
	if !strings.Contains(string(readFile(t, "Dockerfile")), "ARG GO_VERSION="+string(goVersion[1])+"\n") ||
		build.image != "golang:${GO_VERSION}" || build.name != "build" {
		t.Errorf("Dockerfile's first stage: FROM %s AS %s; want golang:${GO_VERSION} AS build, with ARG GO_VERSION=%s (go.mod's)",
			build.image, build.name, goVersion[1])
	}
	var runsScript bool
	for _, in := range build.body {
		if in.op == "RUN" && strings.HasSuffix(in.args, "deploy/build.sh /out") {
			runsScript = true
		}
	}
	if !runsScript {
		t.Errorf("Dockerfile: the build stage has no RUN ... deploy/build.sh /out: the binaries must be built by the script this test runs")
	}
	if !strings.HasPrefix(final.image, "gcr.io/distroless/static") && !strings.HasPrefix(final.image, "alpine:") {
		t.Errorf("Dockerfile's runtime stage is FROM %s, want distroless static or alpine", final.image)
	}
	var user string
	var copied bool
	for _, in := range final.body {
		switch in.op {
		case "USER":
			user = in.args
		case "COPY":
			copied = copied || in.args == "--from=build /out/analyze /out/coordinator /out/worker /usr/local/bin/"
		}
	}
	if u, _, _ := strings.Cut(user, ":"); u == "" || u == "0" || u == "root" {
		t.Errorf("Dockerfile's runtime stage runs as user %q, want a user other than root", user)
	}
	if !copied {
		t.Errorf("Dockerfile's runtime stage does not COPY --from=build /out/analyze /out/coordinator /out/worker /usr/local/bin/")
	}
}

// checkStatic checks that the ELF file path has no interpreter and no
// dynamic section: nothing to load at run time, as in a distroless static
// image.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			libs, _ := f.ImportedLibraries()
			t.Errorf("%s is dynamically linked (program header %v, libraries %v), want static", path, p.Type, libs)
			return
		}
	}
}

// versionLine is analyze --version built from a git checkout: the module
// version (a pseudo-version from the revision), the revision and its time.
var versionLine = regexp.MustCompile(`^analyze version (\S+), revision ([0-9a-f]{40}) \([-0-9T:Z]+\)(, modified)?, go1\.\S+\n$`)

// deploy/build.sh makes static binaries that run: those TestMain built
// from this tree, and those built from a clone of HEAD, as the image's build
// stage sees the repository (.git included), where analyze --version names
// the revision.
func TestBuildScript(t *testing.T) {
	check := func(dir string) {
		for _, name := range []string{"analyze", "coordinator", "worker"} {
			p := filepath.Join(dir, name)
			checkStatic(t, p)
			out, err := exec.Command(p, "--help").CombinedOutput()
			if err != nil || !bytes.Contains(out, []byte("USAGE:\n   "+name)) {
				t.Errorf("%s --help: %v, output %q; want exit 0 and its usage", p, err, out)
			}
		}
	}
	check(bin)

	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	rev := strings.TrimSpace(string(head))
	src := filepath.Join(t.TempDir(), "wopr")
	for _, args := range [][]string{
		{"clone", "--quiet", "--no-local", root, src},
		{"-C", src, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", rev},
	} {
		if msg, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, msg)
		}
	}
	out := t.TempDir()
	if msg, err := buildScript(src, out); err != nil {
		t.Fatalf("deploy/build.sh in a clone of HEAD: %v\n%s", err, msg)
	}
	check(out)
	v, err := exec.Command(filepath.Join(out, "analyze"), "--version").Output()
	if m := versionLine.FindSubmatch(v); err != nil || m == nil || string(m[2]) != rev || len(m[3]) > 0 {
		t.Errorf("analyze --version, built by deploy/build.sh from a clone of %s: %q, %v; want a line matching %s with that revision, unmodified",
			rev, v, err, versionLine)
	}
}
