package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// TestSolveTableAcrossRestart: a pns task interrupted saves its worker's
// table in the worker's directory; the next worker process (a new
// tasks.Process, the old table gone) loads it for the same task, removes
// the file, and finishes in fewer nodes than the task takes from scratch,
// with the same value. A file that does not load is removed and the task
// starts afresh.
func TestSolveTableAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	task := solveTask{Rows: 7, Cols: 7, K: 5, TTMB: 16, Method: MethodPNS}
	payload, _ := json.Marshal(task)
	run := func(ctx context.Context, env tasks.Env) (solveResult, error) {
		out, err := Solve{}.NewRunner(env).Run(ctx, payload)
		var res solveResult
		if err == nil {
			err = json.Unmarshal(out.Data, &res)
		}
		return res, err
	}
	whole, err := run(context.Background(), tasks.Env{Process: &tasks.Process{}})
	if err != nil || whole.Value != mnk.Drawn {
		t.Fatalf("the whole task: %+v, %v", whole, err)
	}
	env := tasks.Env{Process: &tasks.Process{}, Dir: dir}
	ctx := &stopAfter{Context: context.Background(), n: 2}
	if _, err := run(ctx, env); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v, want context.Canceled", err)
	}
	path := tablePath(filepath.Join(dir, "mnk.solve"), mnk.MustNew(7, 7, 5), 16)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("interrupted: no table saved: %v", err)
	}
	resumed, err := run(context.Background(), tasks.Env{Process: &tasks.Process{}, Dir: dir})
	if err != nil || resumed.Value != mnk.Drawn || resumed.Nodes >= whole.Nodes {
		t.Errorf("after the restart: %+v, %v; want a draw in fewer than the whole task's %d nodes", resumed, err, whole.Nodes)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the table file is still there after the load: %v", err)
	}
	t.Logf("7,7,5 at the root: %d nodes whole, %d after a restart with the table saved at the interruption", whole.Nodes, resumed.Nodes)

	// A damaged file: removed, and the task starts afresh.
	if err := os.WriteFile(path, []byte("wopr pns table 1 7,7,5 4\nshort"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, err := run(context.Background(), tasks.Env{Process: &tasks.Process{}, Dir: dir})
	if err != nil || fresh.Value != mnk.Drawn || fresh.Nodes != whole.Nodes {
		t.Errorf("with a damaged file: %+v, %v; want the whole task's %d nodes", fresh, err, whole.Nodes)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the damaged file is still there: %v", err)
	}
}

// While a pns task runs, its table is saved every tableSaveEvery (a worker
// killed without a stop then loses at most that much): a task that runs
// longer than the interval leaves a table that loads.
func TestSolveTableSavedWhileRunning(t *testing.T) {
	every, gap := tableSaveEvery, minSaveGap
	tableSaveEvery, minSaveGap = 20*time.Millisecond, 0
	defer func() { tableSaveEvery, minSaveGap = every, gap }()
	dir := t.TempDir()
	payload, _ := json.Marshal(solveTask{Rows: 7, Cols: 7, K: 5, TTMB: 16, Method: MethodPNS})
	if _, err := (Solve{}).NewRunner(tasks.Env{Process: &tasks.Process{}, Dir: dir}).Run(context.Background(), payload); err != nil {
		t.Fatal(err)
	}
	g := mnk.MustNew(7, 7, 5)
	f, err := os.Open(tablePath(filepath.Join(dir, "mnk.solve"), g, 16))
	if err != nil {
		t.Fatalf("no table saved while the task ran: %v", err)
	}
	defer f.Close()
	if _, err := pns.NewTable(g, 16<<20).ReadFrom(f); err != nil {
		t.Errorf("the table saved while the task ran does not load: %v", err)
	}
}

// TestCertificatePartAcrossRestart: a certificate part interrupted saves
// its own table (a file of the part's own, beside the solve tasks'); the
// part run again loads it, removes the file, and builds a part that
// verifies. While a part runs its table is also saved every
// tableSaveEvery.
func TestCertificatePartAcrossRestart(t *testing.T) {
	g := mnk.MustNew(7, 7, 5)
	p := SolveParams{Rows: 7, Cols: 7, K: 5, SplitDepth: 1, TTMB: 16, Method: MethodPNS, Certificate: true, CertificatePositions: DefaultCertificatePositions}
	plan, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	sp := plan.(*solvePlan)
	// The part of the ninth first move up to symmetry (c8): 0.4 s, and 4
	// polls of its context.
	part := sp.certParts[9]
	payload := plan.Tasks()[9].Payload
	dir := t.TempDir()
	path := partTablePath(filepath.Join(dir, "mnk.solve"), g, 16, part.pos)

	ctx := &stopAfter{Context: context.Background(), n: 2}
	if _, err := (Solve{}).NewRunner(tasks.Env{Process: &tasks.Process{}, Dir: dir}).Run(ctx, payload); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("interrupted: no table saved: %v", err)
	}
	out, err := (Solve{}).NewRunner(tasks.Env{Process: &tasks.Process{}, Dir: dir}).Run(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Check(part.id, out.Data); err != nil {
		t.Errorf("the part resumed: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the table file is still there after the load: %v", err)
	}

	// Saved while it runs: every 20 ms here; the test stops the part
	// after the first save, once it has loaded the file.
	every := tableSaveEvery
	tableSaveEvery = 20 * time.Millisecond
	defer func() { tableSaveEvery, partSaved = every, nil }()
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	var loaded error = errors.New("no save while the part ran")
	partSaved = func(saved string) {
		f, err := os.Open(saved)
		if err == nil {
			_, err = pns.NewTable(g, 16<<20).ReadFrom(f)
			f.Close()
		}
		loaded = err
		cancel()
	}
	payload8 := plan.Tasks()[9].Payload
	if _, err := (Solve{}).NewRunner(tasks.Env{Process: &tasks.Process{}, Dir: dir}).Run(stop, payload8); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped after a save: %v, want context.Canceled", err)
	}
	if loaded != nil {
		t.Errorf("the table saved while the part ran: %v", loaded)
	}
	partSaved = nil
	// Built: the file goes, as no later task reads it.
	if _, err := (Solve{}).NewRunner(tasks.Env{Process: &tasks.Process{}, Dir: dir}).Run(context.Background(), payload8); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the table file is still there after the part was built: %v", err)
	}
}
