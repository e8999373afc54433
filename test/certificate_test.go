package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mnk solve --certificate writes strategies that mnk verify accepts, for a
// draw and a win, with each method, on a board past the alpha-beta
// solver's 36 cells too; a certificate altered, claiming another value or
// cut short is refused with exit code 1 and a message naming why or the
// line.
func TestCertificateEndToEnd(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	for _, c := range []struct{ board, k, method, value string }{
		{"4x4", "4", "alphabeta", "draw"}, {"3x4", "3", "alphabeta", "win"},
		{"3x4", "3", "pns", "win"}, {"6x7", "5", "pns", "draw"},
	} {
		cert := filepath.Join(dir, c.board+"-"+c.method+".cert")
		stdout, stderr, code := sudokuRun(t, "mnk", "solve", "--board", c.board, "--k", c.k, "--method", c.method, "--certificate", cert, "--data", filepath.Join(dir, "data"), "--json")
		if code != 0 || !strings.Contains(stderr, "check it with analyze mnk verify") {
			t.Fatalf("mnk solve %s --certificate: exit %d\n%s", c.board, code, stderr)
		}
		var rep struct{ Value string }
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Value != c.value {
			t.Fatalf("mnk solve %s: report %q (%v), want value %s on stdout alone", c.board, stdout, err, c.value)
		}
		stdout, stderr, code = sudokuRun(t, "mnk", "verify", cert, "--json")
		var v struct {
			Value     string
			Proven    bool
			Positions int
			Pairings  int
		}
		if err := json.Unmarshal([]byte(stdout), &v); code != 0 || err != nil || !v.Proven || v.Value != c.value || v.Positions == 0 {
			t.Errorf("mnk verify %s: exit %d, %q %s", cert, code, stdout, stderr)
		}
		if wantPairings := c.k == "5"; (v.Pairings > 0) != wantPairings {
			t.Errorf("mnk verify %s: %d pairings, want some: %v", cert, v.Pairings, wantPairings)
		}
	}

	text, err := os.ReadFile(filepath.Join(dir, "4x4-alphabeta.cert"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	for _, c := range []struct {
		name, want string
		edit       func([]string) []string
	}{
		{"a draw claimed as a win", "needs a strategy of X to win", func(l []string) []string {
			l[3] = "value win"
			return l
		}},
		{"X's first move missing", "has no move at ..../..../..../....", func(l []string) []string {
			// The first move of X's strategy (the empty board's, "0 0
			// cell", sorted first) gone, and the count one less.
			f := strings.Fields(l[4])
			n, _ := strconv.Atoi(f[3])
			l[4] = fmt.Sprintf("strategy X not-lose %d", n-1)
			return append(l[:5:5], l[6:]...)
		}},
		{"cut short", "line ", func(l []string) []string { return l[:10] }},
	} {
		refuse(t, dir, c.name, lines, c.edit, c.want)
	}

	// A pairing of the 6,7,5 draw with its pairs left out: the lines of
	// the other side, which it has (else the pairing would not be needed),
	// hold no pair. (TestProofCertificateRefusesBadProofs leaves out one
	// pair at a time.)
	text, err = os.ReadFile(filepath.Join(dir, "6x7-pns.cert"))
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(string(text), "\n")
	refuse(t, dir, "a pairing emptied", lines, func(l []string) []string {
		for i, s := range l {
			if f := strings.Fields(s); len(f) > 4 && f[2] == "pairs" {
				l[i] = strings.Join(f[:3], " ")
				return l
			}
		}
		t.Fatal("6x7-pns.cert: no pairing")
		return l
	}, "without a pair")
	expectUsageErrors(t, []usageCase{
		{[]string{"mnk", "verify"}, "one certificate FILE"},
		{[]string{"mnk", "solve", "--certificate", filepath.Join(dir, "x"), "--certificate-positions", "0"}, "--certificate-positions 0"},
		{[]string{"mnk", "solve", "--board", "7x7", "--k", "5", "--method", "alphabeta", "--certificate", filepath.Join(dir, "x")}, "--method alphabeta takes boards of up to 36 cells"},
	}, func([]string) bool { return false })
}

// refuse writes lines, edited, as a certificate and checks that mnk verify
// refuses it with exit code 1 and a message holding want.
func refuse(t *testing.T, dir, name string, lines []string, edit func([]string) []string, want string) {
	t.Helper()
	{
		path := filepath.Join(dir, "bad.cert")
		edited := edit(append([]string(nil), lines...))
		if err := os.WriteFile(path, []byte(strings.Join(edited, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := sudokuRun(t, "mnk", "verify", path)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %s; want exit 1 and %q", name, code, stderr, want)
		}
	}
}

// On a real nats-server with a coordinator and two worker processes, the
// certificate comes back from the job (a task's result, an output in the
// object store, downloaded by analyze) as the same bytes as the embedded
// default's, and verifies.
func TestCertificateMultiProcess(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	args := []string{"mnk", "solve", "--board", "5x5", "--k", "4", "--method", "pns", "--quiet", "--certificate"}
	embedded, multi := filepath.Join(dir, "embedded.cert"), filepath.Join(dir, "multi.cert")
	if _, err := run(t, "analyze", append(args, embedded, "--data", filepath.Join(dir, "data"))...); err != nil {
		t.Fatal(err)
	}
	c := startCluster(t)
	if _, err := run(t, "analyze", append(args, multi, "--nats", c.url)...); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(embedded)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(multi)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) || len(got) == 0 {
		t.Errorf("multi-process certificate: %d bytes, differs from the embedded one's %d", len(got), len(want))
	}
	if stdout, stderr, code := sudokuRun(t, "mnk", "verify", multi); code != 0 || !strings.Contains(stdout, "draw, proven") {
		t.Errorf("mnk verify %s: exit %d, %q %s", multi, code, stdout, stderr)
	}
}
