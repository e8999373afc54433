package test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A corpus run killed with SIGKILL mid-job and started again with the same
// --data finishes, reusing the chunks already done, and writes outputs
// byte-identical to an uninterrupted run.
func TestSudokuSolveKilledAndResumed(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	makeCorpus(t, "royle17.txt", 300_000, corpus)
	// A few bad lines among the good ones.
	f, err := os.OpenFile(corpus, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# comment\n" + strings.Repeat(".", 80) + "\n" + "55" + strings.Repeat(".", 79) + "\n")
	f.Close()

	data := filepath.Join(dir, "data")
	args := func(out, rejects string) []string {
		return []string{"sudoku", "solve", corpus, "--data", data, "--out", out, "--rejects", rejects, "--chunk", "500", "--progress"}
	}
	cmd := exec.Command(filepath.Join(bin, "analyze"), args(filepath.Join(dir, "out1"), filepath.Join(dir, "rej1"))...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := regexp.MustCompile(`: (\d+)/(\d+) tasks`)
	sc := bufio.NewScanner(stderr)
	killedAt := -1
	for sc.Scan() {
		if m := progress.FindStringSubmatch(sc.Text()); m != nil && killedAt < 0 {
			done, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			if done > 0 && done < total {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killedAt = done
			}
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if killedAt < 0 || !errors.As(err, &exit) {
		t.Fatalf("the run was not killed mid-job (killed at %d tasks, exit %v)", killedAt, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out1")); err == nil {
		t.Fatal("a killed run left an output file")
	}
	out2, rej2 := filepath.Join(dir, "out2"), filepath.Join(dir, "rej2")
	rerun := exec.Command(filepath.Join(bin, "analyze"), args(out2, rej2)...)
	var errOut bytes.Buffer
	rerun.Stderr = &errOut
	if err := rerun.Run(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "resuming job") {
		t.Errorf("the second run did not resume:\n%s", errOut.String())
	}
	// The reference: an uninterrupted run on a fresh store.
	out3, rej3 := filepath.Join(dir, "out3"), filepath.Join(dir, "rej3")
	if _, err := run(t, "analyze", "sudoku", "solve", corpus, "--data", filepath.Join(dir, "fresh"), "--out", out3, "--rejects", rej3, "--chunk", "500", "-q"); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{out2, out3}, {rej2, rej3}} {
		a, _ := os.ReadFile(pair[0])
		b, _ := os.ReadFile(pair[1])
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s (%d bytes) differs from the uninterrupted %s (%d bytes)", pair[0], len(a), pair[1], len(b))
		}
	}
	lines := bytes.Count(mustRead(t, out3), []byte("\n"))
	if lines != 300_002 {
		t.Errorf("--out has %d lines, want 300,002 (one per puzzle line, comments excluded)", lines)
	}
	rej := string(mustRead(t, rej3))
	if !strings.Contains(rej, "corpus.txt:300002: malformed: 80 cells, want 81") || !strings.Contains(rej, "corpus.txt:300003: invalid: ") {
		t.Errorf("rejects:\n%s", rej)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
