package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

// A corpus run killed with SIGKILL mid-job and started again with the same
// --data finishes, reusing the chunks already done, and writes outputs
// byte-identical to an uninterrupted run.
func TestSudokuSolveKilledAndResumed(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	makeCorpus(t, midJobCorpus, 100_000, corpus)
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
	if lines != 100_002 {
		t.Errorf("--out has %d lines, want 100,002 (one per puzzle line, comments excluded)", lines)
	}
	rej := string(mustRead(t, rej3))
	if !strings.Contains(rej, "corpus.txt:100002: malformed: 80 cells, want 81") || !strings.Contains(rej, "corpus.txt:100003: invalid: ") {
		t.Errorf("rejects:\n%s", rej)
	}
}

// midJobCorpus is the source of the corpora of the tests that interrupt a
// job mid-way: the progress line comes every
// 250 ms, and 100,000 puzzles of royle17 took 0.3 s on a Zen 4 (the job
// was over before the first line); of forum-hardest-1905-11plus, about
// 24,000 puzzles a second a core, they take seconds.
const midJobCorpus = "forum-hardest-1905-11plus.txt.gz"

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
	runsBinaries(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	makeCorpus(t, midJobCorpus, 60_000, corpus)
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
	runsBinaries(t)
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

// The embedded default deletes the pieces of a corpus job's inputs once
// the job is done and its outputs written, but not while another job is
// unfinished: an interrupted job that shares them (the same corpus, other
// flags) resumes exactly, without its command uploading them again
// (analyze report --wait), and a later job deletes them once no job is
// unfinished.
func TestSudokuSolveDeletesItsPieces(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	makeCorpus(t, midJobCorpus, 100_000, corpus)
	data := filepath.Join(dir, "data")
	solve := []string{"sudoku", "solve", corpus, "--data", data, "--chunk", "200"}

	// Job 1: interrupted mid-job.
	_, at, err := runToMidJob(t, append(slices.Clone(solve), "--out", filepath.Join(dir, "out1"), "--progress"), func(cmd *exec.Cmd) {
		_ = cmd.Process.Signal(syscall.SIGINT)
	})
	var exit *exec.ExitError
	if at < 0 || !errors.As(err, &exit) {
		t.Fatalf("the run was not interrupted mid-job (at %d tasks, exit %v)", at, err)
	}
	// Job 2, the same pieces without --out: done, it keeps them for job 1.
	out2, err := run(t, "analyze", append(slices.Clone(solve), "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	jobs := storedJobs(t, data)
	if len(jobs) != 2 {
		t.Fatalf("%d jobs in the store, want 2", len(jobs))
	}
	pieces := jobPieces(t, data, jobs[1].Spec)
	if n := present(t, data, pieces); n != len(pieces) || n < 500 {
		t.Fatalf("%d of the %d pieces of job 2 in the store after it, want all (job 1 names them)", n, len(pieces))
	}
	// They stay in the corpus: the bucket of pieces has where they are,
	// not them (the rest of the store holds tasks and results for a time).
	bucket, err := filepath.Glob(filepath.Join(data, "nats", "*", "*", "streams", "KV_wopr_pieces"))
	if err != nil || len(bucket) != 1 {
		t.Fatalf("the bucket of pieces under %s: %v, %v", data, bucket, err)
	}
	if stored, size := dirSize(t, bucket[0]), len(mustRead(t, corpus)); stored > size/4 {
		t.Errorf("the bucket of pieces holds %d bytes for a corpus of %d: the pieces were stored, not left in the corpus", stored, size)
	}
	// Job 1 resumed from the store alone: the same figures, no failed task.
	out1, err := run(t, "analyze", "report", jobs[0].ID, "--wait", "--json", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := corpusFigures(t, out1), corpusFigures(t, out2); got != want {
		t.Errorf("job 1 resumed from the store:\n%s\nwant the figures of job 2:\n%s", got, want)
	}
	// Job 3: no job is unfinished any more.
	if _, err := run(t, "analyze", append(slices.Clone(solve), "-q")...); err != nil {
		t.Fatal(err)
	}
	if n := present(t, data, pieces); n != 0 {
		t.Errorf("%d of the %d pieces of the corpus in the store after a job done with no other unfinished, want 0", n, len(pieces))
	}
}

// A corpus changed under an interrupted job fails it, when it is resumed,
// with an error that names the corpus and the bytes that changed, rather
// than solving puzzles that the job never had.
func TestSudokuSolveCorpusChangedUnderItsJob(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	makeCorpus(t, midJobCorpus, 100_000, corpus)
	data := filepath.Join(dir, "data")
	_, at, err := runToMidJob(t, []string{"sudoku", "solve", corpus, "--data", data, "--chunk", "200", "--progress"}, func(cmd *exec.Cmd) {
		_ = cmd.Process.Signal(syscall.SIGINT)
	})
	if at < 0 || err == nil {
		t.Fatalf("the run was not interrupted mid-job (at %d tasks, exit %v)", at, err)
	}
	// Every puzzle changes: so does the piece of every task not done.
	text := mustRead(t, corpus)
	for i := 1; i < len(text); i++ {
		if text[i] == '\n' {
			text[i-1] ^= 1 // '.' becomes '/', a digit another
		}
	}
	if err := os.WriteFile(corpus, text, 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := storedJobs(t, data)
	out, err := run(t, "analyze", "report", jobs[0].ID, "--wait", "--json", "--data", data)
	if err == nil || !strings.Contains(err.Error(), corpus+", bytes") || !strings.Contains(err.Error(), "changed since the job began") {
		t.Fatalf("resumed over a changed corpus: %s, error %v; want the job failed, naming the corpus", out, err)
	}
}

// dirSize is the size of the files under dir.
func dirSize(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += int(info.Size())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// storedJobs returns the jobs of the embedded store in data, oldest first.
func storedJobs(t *testing.T, data string) []*job.Record {
	t.Helper()
	c, err := embedded.StartBare(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	jobs, err := c.Broker.Jobs().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// jobPieces returns the names of the manifests and pieces of the inputs
// of a corpus job (sudoku.UploadCorpus).
func jobPieces(t *testing.T, data string, spec tasks.Spec) []string {
	t.Helper()
	var p sudoku.SolveParams
	if err := json.Unmarshal(spec.Params, &p); err != nil {
		t.Fatal(err)
	}
	c, err := embedded.StartBare(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var names []string
	for _, in := range p.Inputs {
		m, err := c.Broker.Objects().Get(context.Background(), in.Object)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, in.Object)
		for _, line := range strings.Split(strings.TrimSpace(string(m)), "\n")[1:] {
			names = append(names, strings.Fields(line)[2])
		}
	}
	return names
}

// present counts the objects of names in the embedded store in data.
func present(t *testing.T, data string, names []string) int {
	t.Helper()
	c, err := embedded.StartBare(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	n := 0
	for _, name := range names {
		if _, err := c.Broker.Objects().Get(context.Background(), name); err == nil {
			n++
		}
	}
	return n
}

// corpusFigures is a corpus job's JSON report without its timings and
// cache figures.
func corpusFigures(t *testing.T, out string) string {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	if r["failed_tasks"] != 0.0 || r["complete"] != true {
		t.Errorf("report %s: failed tasks or incomplete", out)
	}
	for _, k := range []string{"elapsed_seconds", "puzzles_per_second", "cache_hits", "cached_tasks", "cached_puzzles"} {
		delete(r, k)
	}
	b, _ := json.Marshal(r)
	return string(b)
}
