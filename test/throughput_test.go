package test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ,
// 100 on Linux for every architecture Go runs on).
const clockTicks = 100

// processCPU returns the CPU time (user and system) that process pid has
// used so far, from /proc/PID/stat.
func processCPU(tb testing.TB, pid int) float64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatalf("cpu time of process %d: %v", pid, err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is the first, utime the 12th, stime the 13th.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		tb.Fatalf("cpu time of process %d: %q", pid, data)
	}
	return (utime + stime) / clockTicks
}

// transformedCorpus writes to dst every puzzle of src, transformed (see
// transform) with a random generator seeded with seed.
func transformedCorpus(b *testing.B, src string, seed uint64, dst string) {
	b.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	var out strings.Builder
	for line := range strings.Lines(string(data)) {
		out.WriteString(transform(rng, line[:81]))
		out.WriteByte('\n')
	}
	if err := os.WriteFile(dst, []byte(out.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// throughputRun runs analyze with args (a Sudoku corpus job that ends with
// --json), checks that it solved n puzzles in n tasks, and returns the
// job's elapsed seconds and the CPU time of the analyze process.
func throughputRun(b *testing.B, n int, args ...string) (elapsed, cpu float64) {
	b.Helper()
	cmd := exec.Command(binary("analyze"), args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
	}
	var rep struct {
		Puzzles        int     `json:"puzzles"`
		Unique         int     `json:"unique"`
		Tasks          int     `json:"tasks"`
		ElapsedSeconds float64 `json:"elapsed_seconds"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		b.Fatalf("analyze %s: report %q: %v", strings.Join(args, " "), out, err)
	}
	if rep.Puzzles != n || rep.Unique != n || rep.Tasks != n {
		b.Fatalf("%d puzzles, %d unique, %d tasks; want %d of each", rep.Puzzles, rep.Unique, rep.Tasks, n)
	}
	return rep.ElapsedSeconds, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
}

// BenchmarkTaskThroughput measures how many tasks a second the runtime
// runs and merges when a task costs next to nothing: a Sudoku corpus job
// of 20,000 puzzles (royle17's first) cut into tasks of one puzzle
// (--chunk 1), whose results are a few dozen bytes. It reports tasks/s,
// from the job's start to its last result merged.
//
// "embedded" runs it on the embedded default, in one process, with 2 and
// with 8 worker slots (more slots hide the round trip of each slot's
// request for its next task); cpu-ms/task is that process's CPU time per
// task. "cluster" runs it on separate processes on 127.0.0.1: a
// nats-server, a coordinator and one worker with 8 slots; it reports each
// one's CPU time per task (nats-ms/task, coordinator-ms/task,
// worker-ms/task), and coordinator-tasks/s, the tasks one coordinator
// would merge a second on a core of its own at that cost. On a machine with
// two cores all of them share, the end-to-end rate is what the cores
// allow; the CPU times per task say what each process costs.
//
//	go test ./test -run '^$' -bench TaskThroughput -benchtime 1x
func BenchmarkTaskThroughput(b *testing.B) {
	runsBinaries(b)
	const n = 20_000
	corpus := filepath.Join(b.TempDir(), "corpus.txt")
	makeCorpus(b, "royle17.txt.gz", n, corpus)
	for _, slots := range []int{2, 8} {
		b.Run(fmt.Sprintf("embedded-%d", slots), func(b *testing.B) {
			var elapsed, cpu float64
			for range b.N {
				data := b.TempDir()
				e, c := throughputRun(b, n, "sudoku", "solve", corpus, "--chunk", "1", "--workers", strconv.Itoa(slots), "--data", data, "-q", "--json")
				elapsed, cpu = elapsed+e, cpu+c
			}
			b.ReportMetric(float64(n*b.N)/elapsed, "tasks/s")
			b.ReportMetric(1000*cpu/float64(n*b.N), "cpu-ms/task")
		})
	}
	b.Run("cluster", func(b *testing.B) {
		dir := b.TempDir()
		url, nats := startNATSAt(b, filepath.Join(dir, "js"), "-1")
		coord := start(b, "coordinator", "--nats", url, "--data", filepath.Join(dir, "coordinator"))
		work := start(b, "worker", "--nats", url, "--data", filepath.Join(dir, "worker"), "--concurrency", "8")
		var elapsed, client float64
		var cpu [3]float64
		procs := []*proc{nats, coord, work}
		for i := range b.N {
			var before [3]float64
			for j, p := range procs {
				before[j] = processCPU(b, p.cmd.Process.Pid)
			}
			// Puzzles of its own for each run: none is answered from the
			// coordinator's cache of task results.
			in := filepath.Join(b.TempDir(), "corpus.txt")
			transformedCorpus(b, corpus, uint64(i), in)
			e, c := throughputRun(b, n, "sudoku", "solve", in, "--chunk", "1", "--nats", url, "-q", "--json")
			elapsed, client = elapsed+e, client+c
			for j, p := range procs {
				cpu[j] += processCPU(b, p.cmd.Process.Pid) - before[j]
			}
		}
		tasks := float64(n * b.N)
		b.ReportMetric(tasks/elapsed, "tasks/s")
		b.ReportMetric(1000*cpu[0]/tasks, "nats-ms/task")
		b.ReportMetric(1000*cpu[1]/tasks, "coordinator-ms/task")
		b.ReportMetric(1000*cpu[2]/tasks, "worker-ms/task")
		b.ReportMetric(1000*client/tasks, "client-ms/task")
		b.ReportMetric(tasks/cpu[1], "coordinator-tasks/s")
	})
}

// BenchmarkKindTaskRate measures how many tasks a second one worker slot
// runs for each kind that a job splits into many tasks, at the default task
// size of a job of that kind: the job runs on the embedded default with one
// slot and a fresh data directory, and tasks/s is its tasks over its
// elapsed_seconds (s/task the inverse: a task's cost with the runtime's
// share). A worker with N slots on N cores runs N times that. (mnk search
// and mnk minimax run a job as one task.) With coordinator-tasks/s of
// BenchmarkTaskThroughput, docs/operations.md derives how many workers one
// coordinator serves.
//
//	go test ./test -run '^$' -bench KindTaskRate -benchtime 1x
func BenchmarkKindTaskRate(b *testing.B) {
	runsBinaries(b)
	corpus := filepath.Join(b.TempDir(), "royle17.txt")
	makeCorpus(b, "royle17.txt.gz", 49_158, corpus)
	for _, k := range []struct{ name, args string }{
		{"mnk.count", "mnk count --board 4x4"},
		{"mnk.solve", "mnk solve --board 6x5 -k 4 --method alphabeta"},
		{"mnk.simulate", "mnk simulate --board 4x4 -k 3 --games 1000000"},
		{"nineboard.match", "nineboard match --games 1000"},
		{"sudoku.solve", "sudoku solve " + corpus},
		{"sudoku.generate", "sudoku generate --count 10000"},
	} {
		b.Run(k.name, func(b *testing.B) {
			var tasks, elapsed float64
			for range b.N {
				args := append(strings.Fields(k.args), "--workers", "1", "--data", b.TempDir(), "-q", "--json")
				out, err := exec.Command(binary("analyze"), args...).Output()
				if err != nil {
					b.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
				}
				var rep struct {
					Tasks          int     `json:"tasks"`
					Complete       bool    `json:"complete"`
					ElapsedSeconds float64 `json:"elapsed_seconds"`
				}
				if err := json.Unmarshal(out, &rep); err != nil || !rep.Complete || rep.Tasks < 2 {
					b.Fatalf("analyze %s: report %q (%v): want a complete job of several tasks", strings.Join(args, " "), out, err)
				}
				tasks, elapsed = tasks+float64(rep.Tasks), elapsed+rep.ElapsedSeconds
			}
			b.ReportMetric(tasks/float64(b.N), "tasks/job")
			b.ReportMetric(tasks/elapsed, "tasks/s")
			b.ReportMetric(elapsed/tasks, "s/task")
		})
	}
}
