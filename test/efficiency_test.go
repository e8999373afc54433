package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// efficiencyJob is one job of BenchmarkEfficiency: the command line of
// analyze without --data and --workers, and a check of its --json report.
type efficiencyJob struct {
	name  string
	args  []string
	check func(rep map[string]any) error
}

// efficiencyRun is one run of a job: wall time from process start to exit,
// the job's own elapsed_seconds, and the process's CPU time.
type efficiencyRun struct {
	wall, job, cpu float64
}

// loadAverage returns the 1-minute load average of /proc/loadavg.
func loadAverage(tb testing.TB) float64 {
	tb.Helper()
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		tb.Fatalf("load average: %v", err)
	}
	l, err := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	if err != nil {
		tb.Fatalf("load average %q: %v", data, err)
	}
	return l
}

// envFloat and envDuration read a setting of the benchmark from the
// environment.
func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// waitForQuiet polls the load average until it is under below, or until
// wait has passed, and returns it: on a machine shared with others a round
// measured under load says little.
func waitForQuiet(tb testing.TB, below float64, wait time.Duration) float64 {
	tb.Helper()
	deadline := time.Now().Add(wait)
	for {
		l := loadAverage(tb)
		if l < below || time.Now().After(deadline) {
			return l
		}
		time.Sleep(5 * time.Second) // polling the load with a deadline
	}
}

// runEfficiencyJob runs one job on the embedded default with the given
// number of worker slots and a fresh data directory (no cached results).
func runEfficiencyJob(b *testing.B, j efficiencyJob, workers int, dir string) efficiencyRun {
	b.Helper()
	data, err := os.MkdirTemp(dir, "data")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(data)
	args := append(slices.Clone(j.args), "--json", "-q", "--data", data, "--workers", strconv.Itoa(workers))
	syscall.Sync() // the last run's stores reach the disk now, not during this run
	cmd := exec.Command(binary("analyze"), args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start).Seconds()
	if err != nil {
		b.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
	}
	var rep map[string]any
	if err := json.Unmarshal(out, &rep); err != nil {
		b.Fatalf("analyze %s: report %q: %v", strings.Join(args, " "), out, err)
	}
	if err := j.check(rep); err != nil {
		b.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
	}
	if err := field(rep, "complete", true); err != nil {
		b.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
	}
	elapsed, _ := rep["elapsed_seconds"].(float64)
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return efficiencyRun{wall: wall, job: elapsed, cpu: cpu}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// field checks that a report's field is want.
func field(rep map[string]any, name string, want any) error {
	if got := rep[name]; fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("%s is %v, want %v", name, got, want)
	}
	return nil
}

// BenchmarkEfficiency measures the parallel efficiency of the embedded
// default from one worker slot to two, for three jobs of a few seconds
// each: mnk count 4x4 (count), mnk solve 6,5,4 (solve) and a Sudoku corpus
// of 300,000 puzzles made from royle17 (sudoku). Each round runs every job
// with --workers 1 and --workers 2, in alternating order, each on a fresh
// data directory; the benchmark reports, per job, the median times over the
// rounds (t1-s, t2-s: from process start to exit) and the efficiency
// t1/(2*t2) (eff), and the same from the jobs' own elapsed_seconds
// (eff-job: the job's start to its last result, which leaves out starting
// the embedded cluster and closing its stores), and the CPU time of a run
// with two slots over one's (cpu-ratio: the work that two slots add).
//
// Before each round it waits for the 1-minute load average to fall under
// WOPR_LOAD_BELOW (0.5) for at most WOPR_LOAD_WAIT (5m), and it reports the
// highest load average it started a round at (load-max): a round measured
// while others use the machine says little. WOPR_ROUNDS sets the rounds
// (5), WOPR_EFFICIENCY_JOBS a comma-separated subset of the jobs,
// WOPR_SUDOKU_PUZZLES the puzzles of the Sudoku corpus (300,000).
//
//	go test ./test -run '^$' -bench Efficiency -benchtime 1x
func BenchmarkEfficiency(b *testing.B) {
	runsBinaries(b)
	dir := b.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	puzzles := int(envFloat("WOPR_SUDOKU_PUZZLES", 300_000))
	makeCorpus(b, "royle17.txt.gz", puzzles, corpus)
	jobs := []efficiencyJob{
		{"count", []string{"mnk", "count", "--board", "4x4"}, func(rep map[string]any) error {
			return field(rep, "games", 15038733958272.0)
		}},
		{"solve", []string{"mnk", "solve", "--board", "6x5", "-k", "4", "--method", "alphabeta"}, func(rep map[string]any) error {
			return field(rep, "value", "win")
		}},
		{"sudoku", []string{"sudoku", "solve", corpus}, func(rep map[string]any) error {
			if err := field(rep, "puzzles", float64(puzzles)); err != nil {
				return err
			}
			return field(rep, "unique", float64(puzzles))
		}},
	}
	if only := os.Getenv("WOPR_EFFICIENCY_JOBS"); only != "" {
		jobs = slices.DeleteFunc(jobs, func(j efficiencyJob) bool { return !slices.Contains(strings.Split(only, ","), j.name) })
	}
	rounds := int(envFloat("WOPR_ROUNDS", 5))
	below, wait := envFloat("WOPR_LOAD_BELOW", 0.5), envDuration("WOPR_LOAD_WAIT", 5*time.Minute)
	b.ResetTimer()
	for range b.N {
		runs := make([][2][]efficiencyRun, len(jobs)) // job, slots-1, round
		loadMax := 0.0
		for r := range rounds {
			load := waitForQuiet(b, below, wait)
			loadMax = max(loadMax, load)
			for ji, j := range jobs {
				order := []int{1, 2}
				if r%2 == 1 {
					order = []int{2, 1}
				}
				for _, w := range order {
					run := runEfficiencyJob(b, j, w, dir)
					runs[ji][w-1] = append(runs[ji][w-1], run)
					b.Logf("round %d, load %.2f: %s --workers %d: %.3f s (job %.3f s, cpu %.3f s)", r, load, j.name, w, run.wall, run.job, run.cpu)
				}
			}
		}
		b.ReportMetric(loadMax, "load-max")
		for ji, j := range jobs {
			pick := func(w int, f func(efficiencyRun) float64) float64 {
				var xs []float64
				for _, run := range runs[ji][w-1] {
					xs = append(xs, f(run))
				}
				return median(xs)
			}
			wall := func(r efficiencyRun) float64 { return r.wall }
			jobTime := func(r efficiencyRun) float64 { return r.job }
			cpu := func(r efficiencyRun) float64 { return r.cpu }
			t1, t2 := pick(1, wall), pick(2, wall)
			b.ReportMetric(t1, j.name+"-t1-s")
			b.ReportMetric(t2, j.name+"-t2-s")
			b.ReportMetric(t1/(2*t2), j.name+"-eff")
			b.ReportMetric(pick(1, jobTime)/(2*pick(2, jobTime)), j.name+"-eff-job")
			b.ReportMetric(pick(2, cpu)/pick(1, cpu), j.name+"-cpu-ratio")
		}
	}
}
