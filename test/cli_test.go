package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bad input: one line on stderr saying what is wrong and what is allowed,
// exit code 2, nothing started.
func TestBadInputExitCode2(t *testing.T) {
	runsBinaries(t)
	cases := []usageCase{
		{[]string{"mnk", "count", "--board", "0x3"}, "1 to 8"},
		{[]string{"mnk", "count", "--board", "3by3"}, "want RxC"},
		{[]string{"mnk", "count", "--k", "5"}, "1 <= k <= 3"},
		{[]string{"mnk", "count", "--k", "0"}, "1 <= k <= 3"},
		{[]string{"mnk", "count", "--board", "99x99"}, "at most 25 cells"},
		{[]string{"mnk", "count", "--board", "99x99", "--method", "tree"}, "1 to 8"},
		{[]string{"mnk", "count", "--k", "x"}, "whole number"},
		{[]string{"mnk", "count", "--board", "5x6"}, "5x6 has 30 cells: exact counting is limited to boards of at most 25 cells"},
		{[]string{"mnk", "count", "--board", "5x5", "--method", "tree"}, "at most 16 cells"},
		{[]string{"mnk", "count", "--board", "4x5", "--memory", "1KiB"}, "memory 1 KiB is too small for a task of the level count"},
		{[]string{"mnk", "count", "--board", "4x5", "--memory", "lots"}, "want a size such as 512MiB or 2GiB"},
		{[]string{"mnk", "count", "--board", "4x5", "--shards", "999"}, "shards 999: want 1 to 256"},
		{[]string{"mnk", "count", "--board", "4x5", "--split-depth", "3"}, "--split-depth is for the tree count"},
		{[]string{"mnk", "count", "--method", "fastest"}, "want tree, levels, forward or auto"},
		{[]string{"mnk", "count", "--split-depth", "10"}, "split depth 10"},
		// A hundred million tasks: refused from the parameters, before
		// anything plans them (issue 32: 5 GB in 32 s).
		{[]string{"mnk", "simulate", "--games", "100000000", "--games-per-task", "1"},
			"--games 100000000 --games-per-task 1: 100,000,000 tasks, more than the 1,000,000 a job may have"},
		{[]string{"mnk", "count", "--nonsense"}, "nonsense"},
		{[]string{"mnk", "count", "extra"}, "no arguments"},
		{[]string{"mnk", "count", "--detach"}, "--detach needs --nats"},
		{[]string{"status", "a", "b"}, "want one job id or none, got 2 arguments"},
		{[]string{"report"}, "exactly one job id"},
		{[]string{"nosuchcommand"}, "nosuchcommand"},
		// A URL that could never connect, instead of a connection retried
		// or a dial error (exit 1).
		{[]string{"mnk", "count", "--nats", "bogus://x"}, `scheme "bogus": want nats, tls, ws or wss`},
		{[]string{"jobs", "--nats", "nats://127.0.0.1:99999"}, "port 99999: want 1 to 65535"},
	}
	expectUsageErrors(t, cases, always)
}

// --json prints exactly one JSON object with the documented fields; --quiet
// (and a stderr that is not a terminal) keeps stderr empty.
func TestJSONOutput(t *testing.T) {
	runsBinaries(t)
	cmd := exec.Command(binary("analyze"), "mnk", "count", "--board", "3x3", "--json", "--quiet", "--data", t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q, want nothing", stderr.String())
	}
	dec := json.NewDecoder(&stdout)
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("more than one JSON value on stdout")
	}
	for _, f := range []string{"games", "x_wins", "o_wins", "draws", "nodes", "positions", "canonical_positions",
		"terminal_positions", "canonical_terminal_positions", "canonical_games", "games_by_length", "value",
		"tasks", "failed_tasks", "cache_hits", "elapsed_seconds"} {
		if _, ok := obj[f]; !ok {
			t.Errorf("field %q missing", f)
		}
	}
	if obj["games"].(float64) != 255168 || obj["value"] != "draw" {
		t.Errorf("games %v value %v, want 255168 draw", obj["games"], obj["value"])
	}
	byLen := obj["games_by_length"].(map[string]any)
	if len(byLen) != 5 || byLen["9"].(float64) != 127872 {
		t.Errorf("games_by_length %v", byLen)
	}
}

// An embedded run interrupted with SIGINT resumes when the same command runs
// again with the same --data, and its report is exact.
func TestEmbeddedInterruptAndResume(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	dir := t.TempDir()
	args := append(append([]string{}, countArgs...), "--data", dir, "--progress")
	cmd := exec.Command(binary("analyze"), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once a progress line shows tasks done.
	sc := bufio.NewScanner(stderr)
	interrupted := false
	for sc.Scan() {
		line := sc.Text()
		if !interrupted && strings.Contains(line, "tasks") && !strings.Contains(line, ": 0/") {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			interrupted = true
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !interrupted || !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("interrupted %v, exit %v; want an interrupt and exit code 130", interrupted, err)
	}
	start := time.Now()
	rerun := exec.Command(binary("analyze"), args...)
	var stdout, errOut bytes.Buffer
	rerun.Stdout, rerun.Stderr = &stdout, &errOut
	if err := rerun.Run(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "resuming job") {
		t.Errorf("rerun stderr does not say it resumes:\n%s", errOut.String())
	}
	t.Logf("resumed run took %v", time.Since(start))
	sameFigures(t, parseReport(t, stdout.String()), want)
}

// usageCase is a command line that must be refused as a usage error.
type usageCase struct {
	args []string
	want string
}

// expectUsageErrors runs each command line (with a fresh --data when
// withData says so) and checks what a usage error must do: exit code 2, one
// line on stderr that says what is wrong, nothing on stdout, nothing started.
func expectUsageErrors(t *testing.T, cases []usageCase, withData func(args []string) bool) {
	t.Helper()
	for _, c := range cases {
		dir := filepath.Join(t.TempDir(), "data")
		args := c.args
		if withData(args) {
			args = append(append([]string{}, args...), "--data", dir)
		}
		cmd := exec.Command(binary("analyze"), args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("analyze %s: %v, want exit code 2 (stderr %q)", strings.Join(c.args, " "), err, stderr.String())
			continue
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("analyze %s: stderr %q, want one line containing %q", strings.Join(c.args, " "), stderr.String(), c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("analyze %s: stdout %q, want nothing", strings.Join(c.args, " "), stdout.String())
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("analyze %s: created %s: something was started", strings.Join(c.args, " "), dir)
		}
	}
}

func always([]string) bool { return true }

// A mistyped command or flag is named with the nearest one, when one is
// near; a name far from every one is named alone.
func TestDidYouMean(t *testing.T) {
	runsBinaries(t)
	expectUsageErrors(t, []usageCase{
		{[]string{"mnk", "cout"}, `mnk: no command "cout": did you mean count? (see analyze mnk --help)`},
		{[]string{"sudok", "solve"}, `no command "sudok": did you mean sudoku? (see analyze --help)`},
		{[]string{"sudoku", "slove"}, `sudoku: no command "slove": did you mean solve?`},
		{[]string{"jbos"}, `no command "jbos": did you mean jobs?`},
		{[]string{"mnk", "count", "--bord", "3x3"}, "flag provided but not defined: --bord: did you mean --board?"},
		{[]string{"sudoku", "solve", "x.txt", "--rejcts", "r.txt"}, "flag provided but not defined: --rejcts: did you mean --rejects?"},
		{[]string{"zzzzzz"}, `no command "zzzzzz" (see analyze --help)`},
	}, func([]string) bool { return false })
}

// The long-running commands refuse a bad command line at once: exit code
// 2, one line on stderr.
func TestDaemonUsageErrors(t *testing.T) {
	runsBinaries(t)
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"worker", []string{"--nats", "nats://127.0.0.1:1"}, "--data DIR is required"},
		{"coordinator", []string{"--nats", "nats://127.0.0.1:1"}, "--data DIR is required"},
		{"worker", []string{"--data", t.TempDir(), "extra"}, `no arguments expected, got "extra"`},
		{"coordinator", []string{"--data", t.TempDir(), "--bogus"}, "flag provided but not defined: --bogus"},
		{"worker", []string{"--dta", t.TempDir()}, "flag provided but not defined: --dta: did you mean --data?"},
		// Retried forever before: a URL that can never connect.
		{"worker", []string{"--data", t.TempDir(), "--nats", "::::"}, "an IPv6 address goes in brackets"},
		{"coordinator", []string{"--data", t.TempDir(), "--nats", "nats://h:4222/path"}, "no path"},
		{"worker", []string{"--data", t.TempDir(), "--cache-ttl", "-1h"}, "--cache-ttl -1h0m0s: want 0 (for ever) or more"},
	} {
		cmd := exec.Command(binary(c.cmd), c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%s %v: %v, stderr %q; want exit code 2 and one line with %q", c.cmd, c.args, err, stderr.String(), c.want)
		}
	}
}
