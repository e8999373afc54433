package test

import (
	"bufio"
	"bytes"
	"encoding/json"
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
	makeCorpus(t, "royle17.txt.gz", 300_000, corpus)
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
	_, killedAt, err := runToMidJob(t, args(filepath.Join(dir, "out1"), filepath.Join(dir, "rej1")), func(cmd *exec.Cmd) {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	})
	var exit *exec.ExitError
	if killedAt < 0 || !errors.As(err, &exit) {
		t.Fatalf("the run was not killed mid-job (killed at %d tasks, exit %v)", killedAt, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out1")); err == nil {
		t.Fatal("a killed run left an output file")
	}
	out2, rej2 := filepath.Join(dir, "out2"), filepath.Join(dir, "rej2")
	rerun := exec.Command(binary("analyze"), args(out2, rej2)...)
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

// runToMidJob runs analyze with args (--progress among them), calls midJob
// once, when the progress first shows some but not all tasks done, and
// returns what analyze printed on stdout, the tasks done when midJob was
// called (-1: never), and how analyze exited.
func runToMidJob(t *testing.T, args []string, midJob func(*exec.Cmd)) ([]byte, int, error) {
	t.Helper()
	cmd := exec.Command(binary("analyze"), args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := regexp.MustCompile(`: (\d+)/(\d+) tasks`)
	sc := bufio.NewScanner(stderr)
	at := -1
	for sc.Scan() {
		if m := progress.FindStringSubmatch(sc.Text()); m != nil && at < 0 {
			done, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			if done > 0 && done < total {
				midJob(cmd)
				at = done
			}
		}
	}
	err = cmd.Wait() // before stdout is read: until then a goroutine copies into it
	return stdout.Bytes(), at, err
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A corpus job on separate processes (a real nats-server, the coordinator,
// two workers, one of them SIGKILLed mid-job) writes the same --out and
// --rejects bytes and the same figures as the embedded default with
// another chunk size.
func TestSudokuSolveMultiProcessEqualsEmbedded(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	makeCorpus(t, "royle17.txt.gz", 60_000, corpus)
	f, err := os.OpenFile(corpus, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Bad lines, a comment, and a puzzle in the 9-row layout.
	f.WriteString("# comment\n" + strings.Repeat(".", 80) + "\n" + "55" + strings.Repeat(".", 79) + "\n\n" +
		"003020600\n900305001\n001806400\n008102900\n700000008\n006708200\n002609500\n800203009\n005010300\n\n" +
		strings.Repeat(".", 81) + "\n")
	f.Close()
	files := []string{corpus, repoDataset(t, "euler96.txt.gz")}
	type report struct {
		Puzzles, Unique, Multiple, Unsolvable, Invalid, Malformed int
		Rejects                                                   []map[string]any
		CluesHistogram                                            map[string]int `json:"clues_histogram"`
		GuessesHistogram                                          map[string]int `json:"guesses_histogram"`
		Hardest                                                   []map[string]any
	}
	solve := func(name string, extra ...string) (report, []byte, []byte) {
		out, rej := filepath.Join(dir, name+".out"), filepath.Join(dir, name+".rej")
		args := append(append([]string{"sudoku", "solve"}, files...), "--out", out, "--rejects", rej, "--json", "-q")
		stdout, err := run(t, "analyze", append(args, extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		var r report
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stdout)
		}
		return r, mustRead(t, out), mustRead(t, rej)
	}
	want, wantOut, wantRej := solve("embedded", "--data", filepath.Join(dir, "data"))
	if want.Puzzles != 60_000+3+1+50 || want.Malformed != 1 || want.Invalid != 1 || want.Multiple != 1 {
		t.Fatalf("embedded report: %+v", want)
	}

	c := startCluster(t)
	out, rej := filepath.Join(dir, "mp.out"), filepath.Join(dir, "mp.rej")
	args := append(append([]string{"sudoku", "solve"}, files...), "--nats", c.url, "--out", out, "--rejects", rej, "--json", "--progress", "--chunk", "150")
	stdout, killedAt, err := runToMidJob(t, args, func(*exec.Cmd) { _ = c.workers[0].stop(t, syscall.SIGKILL) })
	if err != nil {
		t.Fatalf("analyze --nats: %v", err)
	}
	if killedAt < 0 {
		t.Fatal("no worker was killed mid-job")
	}
	var got report
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) {
		t.Errorf("multi-process report differs:\n%s\nembedded:\n%s", gj, wj)
	}
	if !bytes.Equal(mustRead(t, out), wantOut) || !bytes.Equal(mustRead(t, rej), wantRej) {
		t.Error("multi-process --out or --rejects differ from the embedded run")
	}
	// Output files get the permissions of any new file (the umask's).
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	for _, path := range []string{out, filepath.Join(dir, "embedded.out")} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != os.FileMode(0o666&^umask) {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), os.FileMode(0o666&^umask))
		}
	}
}

// `analyze report ID --wait` on the embedded default resumes an
// interrupted job, as its own command would, and prints its report: the
// same figures as an uninterrupted run.
func TestReportWaitResumesEmbeddedJob(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	_, at, err := runToMidJob(t, append(countArgs, "--data", data, "--progress"), func(cmd *exec.Cmd) {
		_ = cmd.Process.Signal(syscall.SIGINT)
	})
	var exit *exec.ExitError
	if at < 0 || !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("the run was not interrupted mid-job (at %d tasks, exit %v)", at, err)
	}
	out, err := run(t, "analyze", "jobs", "--json", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Jobs []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Jobs) != 1 || list.Jobs[0].State != "running" {
		t.Fatalf("jobs %s (%v), want one running", out, err)
	}
	out, err = run(t, "analyze", "report", list.Jobs[0].ID, "--wait", "--json", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	sameFigures(t, parseReport(t, out), reference(t))
}
