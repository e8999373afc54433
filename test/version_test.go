package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// versionLine is what analyze --version prints: the module version, the
// revision (or why there is none), and the Go version.
var versionLine = regexp.MustCompile(`^analyze version (\(devel\)|v\S+), ` +
	`(revision ([0-9a-f]{40})( \([-0-9T:Z]+\))?(, modified)?|revision unknown \(built without VCS information\)), go1\.\S+\n$`)

func TestVersion(t *testing.T) {
	runsBinaries(t)
	out, stderr, code := sudokuRun(t, "--version")
	if code != 0 || !versionLine.MatchString(out) {
		t.Errorf("analyze --version: exit %d, stdout %q, stderr %q; want exit 0 and a line matching %s", code, out, stderr, versionLine)
	}

	// Built in a git checkout with VCS stamping on, the revision is the
	// checkout's HEAD. (go build stamps only when the checkout's .git is
	// a directory: not in a worktree made by git worktree add.)
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if st, serr := os.Stat(filepath.Join(root, ".git")); err != nil || serr != nil || !st.IsDir() {
		t.Skipf("not a git checkout with a .git directory (%v, %v): the stamped revision is not checked", err, serr)
	}
	status, err := exec.Command("git", "-C", root, "status", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "analyze")
	build := exec.Command("go", "build", "-o", bin, "./cmd/analyze")
	build.Dir = root
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, msg)
	}
	got, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := versionLine.FindStringSubmatch(string(got))
	wantRev, wantModified := strings.TrimSpace(string(head)), len(status) > 0
	if m == nil || m[3] != wantRev || (m[5] != "") != wantModified {
		t.Errorf("analyze --version, built with -buildvcs=true: %q; want revision %s, modified %v", got, wantRev, wantModified)
	}
}

// The completion scripts print and parse, and run in their shells complete
// a command, a subcommand and a flag by asking analyze. zsh's are a
// subtest, skipped (naming zsh) where it is not installed.
func TestCompletion(t *testing.T) {
	runsBinaries(t)
	for shell, want := range map[string][]string{
		"bash": {"complete -o bashdefault -o default -F _analyze_complete analyze", "--generate-bash-completion"},
		"zsh":  {"#compdef analyze", "compdef _analyze analyze", "--generate-bash-completion"},
	} {
		out, stderr, code := sudokuRun(t, "completion", shell)
		if code != 0 {
			t.Errorf("analyze completion %s: exit %d, %s", shell, code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("analyze completion %s: %q lacks %q", shell, out, w)
			}
		}
	}
	if _, stderr, code := sudokuRun(t, "completion", "fish"); code != 2 || !strings.Contains(stderr, "want one shell, bash or zsh") {
		t.Errorf("analyze completion fish: exit %d, %q; want exit 2 and a usage error", code, stderr)
	}

	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash: %v (CI runs in bash)", err)
	}
	script, _, _ := sudokuRun(t, "completion", "bash")
	if msg, err := exec.Command(bash, "-n", "-c", script).CombinedOutput(); err != nil {
		t.Errorf("bash -n: the script does not parse: %v\n%s", err, msg)
	}
	for line, want := range map[string]string{
		"analyze sud":                   "sudoku",
		"analyze sudoku so":             "solve",
		"analyze sudoku solve --rej":    "--rejects",
		"analyze sudoku solve p.txt --": "--chunk --data --detach --help --json --metrics-addr --nats --nats-creds --nats-nkey --nats-password --nats-user --out --progress --quiet --rejects --strict --tls-ca --tls-cert --tls-key --verify --workers",
		"analyze sudoku solve -- --":    "", // after "--", only arguments: analyze is not asked
	} {
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script+`
COMP_WORDS=(`+line+`)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_analyze_complete
printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '`)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("bash, completing %q: %q (%v), want %q", line, got, err, want)
		}
	}

	// zsh, in a subtest skipped where it is not installed: the script
	// parses, and the completion function, with _describe and _files
	// replaced by functions that print what they are given (zsh itself
	// filters the words by what has been typed), completes.
	t.Run("zsh", func(t *testing.T) {
		zsh, err := exec.LookPath("zsh")
		if err != nil {
			t.Skipf("zsh is not installed (%v): its completion script is neither parsed nor run; .ci/run installs it", err)
		}
		script, _, _ := sudokuRun(t, "completion", "zsh")
		if msg, err := exec.Command(zsh, "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: the script does not parse: %v\n%s", err, msg)
		}
		for line, want := range map[string]string{
			"analyze sudoku so":          "bench compare explain generate h help rate solve",
			"analyze sudoku solve --rej": "--chunk --data --detach --help --json --metrics-addr --nats --nats-creds --nats-nkey --nats-password --nats-user --out --progress --quiet --rejects --strict --tls-ca --tls-cert --tls-key --verify --workers -h -q",
			"analyze sudoku solve -- x":  "FILES",
		} {
			cmd := exec.Command(zsh, "-f", "-c", `autoload -Uz compinit && compinit -D -u
`+script+`
_describe() { print -l -- "${(@P)2}" }
_files() { print FILES }
words=(`+line+`)
CURRENT=${#words}
_analyze | sort | tr '\n' ' '`)
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if got := strings.TrimSpace(string(out)); err != nil || got != want {
				t.Errorf("zsh, completing %q: %q (%v), want %q", line, got, err, want)
			}
		}
	})
}
