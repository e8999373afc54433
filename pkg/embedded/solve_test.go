package embedded_test

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	mnkcert "github.com/woprlabs/wopr/pkg/engine/mnk/cert"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// runJob submits a job, waits for it to finish and decodes its report.
func runJob(t *testing.T, b *broker.Broker, kind string, params, rep any) *job.Record {
	t.Helper()
	j := wait(t, b, submit(t, b, kind, params))
	if j.State != job.Done {
		t.Fatalf("%s job %s: state %s, error %q", kind, j.ID, j.State, j.Error)
	}
	if err := json.Unmarshal(j.Report, rep); err != nil {
		t.Fatal(err)
	}
	return j
}

// solveReport is an mnk.solve report as a job's record has it.
type solveReport struct {
	mnktasks.SolveReport
	tasks.Common
}

// solveFigures keeps what depends on the game only.
type solveFigures struct {
	Value      string
	BestMoves  [][2]int
	MoveValues map[string]string
}

// TestSolveDistributedMatchesSingleProcess: the value, best moves and move
// values of a distributed solve do not depend on the split or the number of
// workers, and are what one solver in this process finds.
func TestSolveDistributedMatchesSingleProcess(t *testing.T) {
	one := startCluster(t, t.TempDir(), 1)
	three := startCluster(t, t.TempDir(), 3)
	games := []struct {
		m, n, k int
		depths  []int
	}{
		{3, 3, 3, []int{1, 3}},
		{3, 4, 3, []int{1, 2}},
		{4, 3, 3, []int{-1}},
		{4, 4, 4, []int{-1, 2}},
		{5, 5, 4, []int{-1}},
	}
	for _, g := range games {
		if raceSkipsBoard(t, g.m, g.n, fmt.Sprintf("%d,%d,%d", g.m, g.n, g.k)) {
			continue
		}
		game := mnk.MustNew(g.m, g.n, g.k)
		s := solve.New(game, 16<<20)
		v, _ := s.Solve(context.Background(), mnk.Position{})
		mv, _ := s.MoveValues(context.Background(), mnk.Position{})
		want := solveFigures{Value: v.String(), BestMoves: [][2]int{}, MoveValues: map[string]string{}}
		for _, m := range mv {
			want.MoveValues[fmt.Sprintf("%d,%d", m.Cell/8, m.Cell%8)] = m.Value.String()
			if m.Value == v {
				want.BestMoves = append(want.BestMoves, [2]int{m.Cell / 8, m.Cell % 8})
			}
		}
		for _, d := range g.depths {
			for name, c := range map[string]*embedded.Cluster{"1 worker": one, "3 workers": three} {
				var rep solveReport
				runJob(t, c.Broker, "mnk.solve", mnktasks.SolveParams{Rows: g.m, Cols: g.n, K: g.k, SplitDepth: d, RootMoves: true}, &rep)
				got := solveFigures{rep.Value, rep.BestMoves, rep.MoveValues}
				label := fmt.Sprintf("%d,%d,%d split %d, %s", g.m, g.n, g.k, d, name)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\ngot  %+v\nwant %+v", label, got, want)
				}
				if !rep.Complete || len(rep.TaskDetails) != rep.Tasks || rep.Nodes == 0 || rep.Speedup <= 0 || len(rep.PV) == 0 {
					t.Errorf("%s: complete %v, %d task details for %d tasks, %d nodes, speedup %v, pv %v",
						label, rep.Complete, len(rep.TaskDetails), rep.Tasks, rep.Nodes, rep.Speedup, rep.PV)
				}
			}
		}
	}
}

// raceSkipsBoard tells whether a test built with -race leaves out the
// board of m rows and n columns, which it then logs under label: boards of
// more than 16 cells. The workers' and the coordinator's concurrency is the
// same on every board, and the race detector makes the big ones minutes of
// engine work (TestSolveCertificateBuiltInParts still builds a 5,5,4
// certificate under it); the build without -race runs them all.
func raceSkipsBoard(t *testing.T, m, n int, label string) bool {
	t.Helper()
	if !race.Enabled || m*n <= 16 {
		return false
	}
	t.Logf("-race: %s skipped (more than 16 cells); the build without -race runs it", label)
	return true
}

// TestSolveRerunUsesCaches: a rerun takes every task from the workers'
// result cache; a new job on the same game with another split (other
// tasks), in a new process on the same data (the transposition table in
// memory, which the worker's slots keep across jobs, gone), finds proven
// positions in the workers' store of values.
func TestSolveRerunUsesCaches(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, dir, 2)
	p := mnktasks.SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 1}
	var first, second, deeper solveReport
	runJob(t, c.Broker, "mnk.solve", p, &first)
	runJob(t, c.Broker, "mnk.solve", p, &second)
	if second.CachedTasks != second.Tasks || second.Value != first.Value {
		t.Errorf("rerun: %d of %d tasks from the result cache, value %s (first %s)", second.CachedTasks, second.Tasks, second.Value, first.Value)
	}
	// Its times are the first run's, reported apart: no speedup from
	// work nobody did.
	if second.TaskSeconds != 0 || second.Speedup != 0 || second.CachedTaskSeconds != first.TaskSeconds || first.CachedTaskSeconds != 0 {
		t.Errorf("rerun: task seconds %v, speedup %v, cached %v; first run %v s, cached %v: want 0, 0 and the first run's",
			second.TaskSeconds, second.Speedup, second.CachedTaskSeconds, first.TaskSeconds, first.CachedTaskSeconds)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	c = startCluster(t, dir, 2)
	p.SplitDepth = 2
	runJob(t, c.Broker, "mnk.solve", p, &deeper)
	if deeper.PositionCacheHits == 0 || deeper.Value != first.Value {
		t.Errorf("split 2 after split 1: %d proven positions reused, value %s (want %s)", deeper.PositionCacheHits, deeper.Value, first.Value)
	}
}

// extractCertificate is the certificate of the empty board of p's game,
// extracted in this process with the method of p, as the job's task
// extracts it.
func extractCertificate(t *testing.T, p mnktasks.SolveParams) *bytes.Buffer {
	t.Helper()
	game := mnk.MustNew(p.Rows, p.Cols, p.K)
	var cert *mnkcert.Certificate
	var err error
	if p.Method == mnktasks.MethodPNS {
		cert, err = pns.NewCertificate(context.Background(), mnktasks.CertificateSolver(game, p.TTMB<<20), mnk.Position{}, p.CertificatePositions, nil)
	} else {
		cert, err = solve.NewCertificate(context.Background(), solve.New(game, p.TTMB<<20), mnk.Position{}, p.CertificatePositions, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if _, err := cert.WriteTo(&text); err != nil {
		t.Fatal(err)
	}
	return &text
}

// TestSolveCertificateOutput: a solve job with a certificate, on a cluster
// of two workers, writes as its output "certificate" the bytes that one
// extraction in this process writes (through a result message, the object
// store and the report's check), which verify; a rerun takes it from the
// cache.
func TestSolveCertificateOutput(t *testing.T) {
	c := startCluster(t, t.TempDir(), 2)
	for _, g := range []struct {
		m, n, k int
		method  string
	}{{4, 4, 4, mnktasks.MethodAlphaBeta}, {5, 5, 4, mnktasks.MethodPNS}} {
		p := mnktasks.SolveParams{Rows: g.m, Cols: g.n, K: g.k, SplitDepth: -1, TTMB: mnktasks.DefaultTTMB, Method: g.method,
			Certificate: true, CertificatePositions: mnktasks.DefaultCertificatePositions}
		label := fmt.Sprintf("%d,%d,%d %s", g.m, g.n, g.k, g.method)
		if raceSkipsBoard(t, g.m, g.n, label) {
			continue
		}
		want := extractCertificate(t, p)
		for run, rerun := range []bool{false, true} {
			var rep solveReport
			j := runJob(t, c.Broker, "mnk.solve", p, &rep)
			got := download(t, c.Broker, j, "certificate")
			if got != want.String() {
				t.Errorf("%s run %d: the job's certificate (%d bytes) differs from this process's (%d bytes)", label, run, len(got), want.Len())
			}
			read, err := mnkcert.Read(strings.NewReader(got))
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			if _, err := read.Verify(context.Background()); err != nil || read.Value.String() != rep.Value || rep.Value != "draw" {
				t.Errorf("%s: verify %v, value %s, report %s; want a proven draw", label, err, read.Value, rep.Value)
			}
			if rep.Certificate == nil || rep.Certificate.Bytes != want.Len() {
				t.Errorf("%s: report's certificate %+v, want one of %d bytes", label, rep.Certificate, want.Len())
			}
			if rerun && rep.CachedTasks != rep.Tasks {
				t.Errorf("%s rerun: %d of %d tasks from the result cache, want every task", label, rep.CachedTasks, rep.Tasks)
			}
		}
	}
}

// TestSolveCertificateBuiltInParts: a pns job split at the first moves
// builds its certificate in parts, a task each; on clusters of one and of
// two workers it writes the same bytes, which verify and prove the value
// the job found; a rerun takes every part from the result cache.
func TestSolveCertificateBuiltInParts(t *testing.T) {
	p := mnktasks.SolveParams{Rows: 5, Cols: 5, K: 4, SplitDepth: 1, TTMB: 64, Method: mnktasks.MethodPNS,
		Certificate: true, CertificatePositions: mnktasks.DefaultCertificatePositions}
	var first string
	for _, workers := range []int{1, 2} {
		c := startCluster(t, t.TempDir(), workers)
		for run := range 2 {
			var rep solveReport
			j := runJob(t, c.Broker, "mnk.solve", p, &rep)
			got := download(t, c.Broker, j, "certificate")
			if first == "" {
				first = got
			} else if got != first {
				t.Errorf("%d workers, run %d: a certificate of %d bytes, not the %d bytes of the first run", workers, run, len(got), len(first))
			}
			read, err := mnkcert.Read(strings.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := read.Verify(context.Background()); err != nil || rep.Value != "draw" || read.Value.String() != rep.Value || read.Parts() != 6 {
				t.Errorf("%d workers: verify %v, value %s in %d parts, report %s; want a draw proven in 6 parts", workers, err, read.Value, read.Parts(), rep.Value)
			}
			if rep.Certificate == nil || rep.Certificate.Parts != 6 || rep.Certificate.Bytes != len(got) {
				t.Errorf("%d workers: report's certificate %+v, want 6 parts of %d bytes", workers, rep.Certificate, len(got))
			}
			if run == 1 && rep.CachedTasks != rep.Tasks {
				t.Errorf("%d workers, rerun: %d of %d tasks from the result cache, want every task", workers, rep.CachedTasks, rep.Tasks)
			}
		}
		if err := c.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSolveCertificateInParts: on a cluster whose NATS server takes
// messages of 16 KB, a certificate task's result, several times that,
// reaches the coordinator in parts, and the certificate written to the
// client's file (as analyze's is: the object store, which writes chunks
// of 128 KB, would refuse it) is byte for byte what one extraction in this
// process writes, and verifies.
func TestSolveCertificateInParts(t *testing.T) {
	const maxPayload = 16 << 10
	c, err := embedded.Start(context.Background(), embedded.Options{Dir: t.TempDir(), Workers: 2, Queue: testQueue(), MaxPayload: maxPayload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	for _, g := range []struct {
		m, n, k int
		method  string
	}{{4, 4, 4, mnktasks.MethodAlphaBeta}, {5, 5, 4, mnktasks.MethodPNS}} {
		p := mnktasks.SolveParams{Rows: g.m, Cols: g.n, K: g.k, SplitDepth: -1, TTMB: mnktasks.DefaultTTMB, Method: g.method,
			Certificate: true, CertificatePositions: mnktasks.DefaultCertificatePositions}
		label := fmt.Sprintf("%d,%d,%d %s", g.m, g.n, g.k, g.method)
		if raceSkipsBoard(t, g.m, g.n, label) {
			continue
		}
		want := extractCertificate(t, p)
		// The task's result holds the text deflated as this, in base64,
		// and a little more.
		var deflated bytes.Buffer
		zw, _ := flate.NewWriter(&deflated, flate.DefaultCompression)
		zw.Write(want.Bytes())
		zw.Close()
		if n := base64.StdEncoding.EncodedLen(deflated.Len()); n < 2*maxPayload {
			t.Fatalf("%s: the certificate's result holds %d bytes, which do not take several messages of %d", label, n, maxPayload)
		}

		f, err := os.Create(filepath.Join(t.TempDir(), "certificate"))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(p)
		r := job.New(tasks.Spec{Kind: "mnk.solve", Params: raw})
		c.Sink(tasks.OutputObject(r.ID, "certificate"), f)
		if err := c.Broker.Jobs().Create(ctxFor(t), r); err != nil {
			t.Fatal(err)
		}
		j := wait(t, c.Broker, r.ID)
		c.Unsink(tasks.OutputObject(r.ID, "certificate"))
		f.Close()
		var rep solveReport
		if j.State != job.Done || json.Unmarshal(j.Report, &rep) != nil {
			t.Fatalf("%s: job %s: state %s, error %q", label, j.ID, j.State, j.Error)
		}
		got, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: the job's certificate (%d bytes) differs from this process's (%d bytes)", label, len(got), want.Len())
		}
		read, err := mnkcert.Read(bytes.NewReader(got))
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if _, err := read.Verify(context.Background()); err != nil || read.Value.String() != rep.Value || rep.Value != "draw" {
			t.Errorf("%s: verify %v, value %s, report %s; want a proven draw", label, err, read.Value, rep.Value)
		}
		if rep.Certificate == nil || rep.Certificate.Bytes != want.Len() {
			t.Errorf("%s: report's certificate %+v, want one of %d bytes", label, rep.Certificate, want.Len())
		}
	}
}

func TestSearchAndMinimaxJobs(t *testing.T) {
	c := startCluster(t, t.TempDir(), 2)
	var mm mnktasks.MinimaxReport
	runJob(t, c.Broker, "mnk.minimax", mnktasks.MinimaxParams{Rows: 3, Cols: 3, K: 3}, &mm)
	if mm.Calls != 340858 || mm.BestMove != [2]int{0, 0} {
		t.Errorf("minimax: %d calls, move %v; want 340858 calls, [0 0]", mm.Calls, mm.BestMove)
	}
	var sr mnktasks.SearchReport
	runJob(t, c.Broker, "mnk.search", mnktasks.SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "0,0 0,1 1,1", Depth: 9}, &sr)
	if sr.BestMove != [2]int{2, 2} || !strings.HasPrefix(sr.Result, "loss in") || sr.ToMove != "O" {
		t.Errorf("search: move %v, result %q, to move %s; want [2 2], a loss, O", sr.BestMove, sr.Result, sr.ToMove)
	}
	j := wait(t, c.Broker, submit(t, c.Broker, "mnk.solve", mnktasks.SolveParams{Rows: 7, Cols: 7, K: 4, SplitDepth: -1}))
	if j.State != job.Failed || !strings.Contains(j.Error, "at most 36 cells") {
		t.Errorf("7x7 solve: state %s, error %q; want failed, naming the limit", j.State, j.Error)
	}
}

// A search under a time budget depends on the machine's speed: a rerun
// searches again rather than taking the result stored by the first run. A
// search to a fixed depth gives the same result every time and is cached.
func TestVolatileTasksNotCached(t *testing.T) {
	c := startCluster(t, t.TempDir(), 1)
	var published atomic.Int64
	seen := make(chan struct{}, 16)
	if err := c.Broker.Work().ObserveTasks(ctxFor(t), func(job.Task) {
		published.Add(1)
		select {
		case seen <- struct{}{}:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	// The observer hears of a task some time after the job that
	// published it is done: wait until it has heard of n.
	heard := func(n int64) {
		t.Helper()
		for published.Load() < n {
			select {
			case <-seen:
			case <-time.After(10 * time.Second):
				t.Fatalf("the observer heard of %d tasks published, want %d", published.Load(), n)
			}
		}
	}
	var want int64 // tasks published so far
	run := func(p mnktasks.SearchParams) (*job.Record, mnktasks.SearchReport) {
		j := wait(t, c.Broker, submit(t, c.Broker, mnktasks.Search{}.Name(), p))
		var r struct {
			mnktasks.SearchReport
			tasks.Common
		}
		if err := json.Unmarshal(j.Report, &r); err != nil || j.State != job.Done || !r.Complete {
			t.Fatalf("%+v: state %s, report %s (%v)", p, j.State, j.Report, err)
		}
		return j, r.SearchReport
	}
	for _, tc := range []struct {
		p      mnktasks.SearchParams
		cached bool
	}{
		{mnktasks.SearchParams{Rows: 4, Cols: 4, K: 3, Moves: "1,1", Depth: 3, TimeSeconds: 60}, false},
		{mnktasks.SearchParams{Rows: 15, Cols: 15, K: 5, Moves: "7,7", Depth: 2, TimeSeconds: 60}, false},
		{mnktasks.SearchParams{Rows: 4, Cols: 4, K: 3, Moves: "1,1", Depth: 3}, true},
	} {
		_, first := run(tc.p)
		want++ // each case's first run publishes its one task
		heard(want)
		before := published.Load()
		j, second := run(tc.p)
		if !tc.cached {
			want++
			heard(want)
		}
		again := published.Load() - before
		if tc.cached != (again == 0) || tc.cached != (j.CachedTasks == 1) {
			t.Errorf("%+v rerun: %d tasks published, %d from the result cache; want cached %v", tc.p, again, j.CachedTasks, tc.cached)
		}
		if first.BestMove != second.BestMove || first.Score != second.Score {
			t.Errorf("%+v: rerun gave %v %d, first run %v %d", tc.p, second.BestMove, second.Score, first.BestMove, first.Score)
		}
	}
}

// A simulation on the pipeline is the same games whatever the number of
// workers and the split, and its exact odds do not depend on them either.
func TestSimulateIndependentOfWorkers(t *testing.T) {
	one := startCluster(t, t.TempDir(), 1)
	three := startCluster(t, t.TempDir(), 3)
	type report struct {
		mnktasks.SimulateReport
		tasks.Common
	}
	var ref *report
	for _, per := range []int{0, 13} {
		for name, c := range map[string]*embedded.Cluster{"1 worker": one, "3 workers": three} {
			var r report
			p := mnktasks.SimulateParams{Rows: 3, Cols: 4, K: 3, X: "engine:depth=2", O: "random", Games: 300, Seed: 5, GamesPerTask: per, Exact: true}
			runJob(t, c.Broker, "mnk.simulate", p, &r)
			if !r.Complete || r.Played != 300 || r.Exact == nil || r.X.Moves == 0 || r.X.Nodes == 0 {
				t.Fatalf("%s, %d per task: %+v", name, per, r)
			}
			if ref == nil {
				ref = &r
				continue
			}
			if r.Digest != ref.Digest || r.XWins != ref.XWins || r.Draws != ref.Draws || *r.ExactFractions != *ref.ExactFractions || r.X.Nodes != ref.X.Nodes {
				t.Errorf("%s, %d per task: digest %s, %d/%d/%d, exact %+v; first run: %s, %d/%d/%d, %+v", name, per, r.Digest,
					r.XWins, r.OWins, r.Draws, *r.ExactFractions, ref.Digest, ref.XWins, ref.OWins, ref.Draws, *ref.ExactFractions)
			}
		}
	}
}
