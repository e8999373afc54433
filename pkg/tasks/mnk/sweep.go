package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/ladder"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// "mnk.sweep" measures where plain search stops: it solves the empty board
// of every (board, k) of a grid with every rung of the ladder
// (ladder.Run), each cell one task stopped by a node budget or a time
// limit, and reports the nodes each rung needed, the largest board each
// solved (the frontier) and how its nodes grow with the number of cells.
//
// A cell's node count does not depend on the machine unless the time limit
// stopped it, so the report (but its seconds) is the same whatever the
// workers; a cell's result is cached like any task's, keyed by its board,
// k, rung, budget, time limit and table size.

func init() { tasks.Register(Sweep{}) }

// The sweep's defaults: the boards from 3x3 to 6x6 that add a row or a
// column at a time (9, 12, 16, 20, 25, 30 and 36 cells: even steps for the
// growth fits, and one shape per size, since RxC and CxR are the same game),
// k from 3 to 5, and every rung built.
var (
	DefaultSweepBoards = []string{"3x3", "3x4", "4x4", "4x5", "5x5", "5x6", "6x6"}
	DefaultSweepKs     = []int{3, 4, 5}
)

// Defaults and limits of the sweep's budgets.
const (
	// DefaultSweepNodeBudget stops a cell after this many nodes: enough
	// for the solver to prove 5,5,5 (31 million), and few enough that
	// the default sweep runs in minutes on 2 cores
	// (docs/where-search-stops.md has its time).
	DefaultSweepNodeBudget = 50_000_000
	// DefaultSweepCellTime stops a cell that the budget has not stopped:
	// a safety net, above the time the slowest rung takes to spend the
	// budget on a busy machine.
	DefaultSweepCellTime = 3 * time.Minute
	// DefaultSweepTTMB is the table of the rungs that have one, in MB.
	DefaultSweepTTMB = 64
	// maxSweepTTMB bounds a cell's table (each worker slot has its own).
	maxSweepTTMB = 4096
	// maxSweepCellTime bounds --cell-time.
	maxSweepCellTime = 24 * time.Hour
)

// DefaultSweepAlgorithms lists the rungs a sweep runs by default: every
// rung of the ladder.
func DefaultSweepAlgorithms() []string { return slices.Clone(ladder.Rungs) }

// rungTakes tells whether rung can solve a board of g's size; if not, why.
func rungTakes(g *mnk.Game, rung string) (bool, string) {
	if err := ladder.Takes(g, rung); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// SweepParams are the parameters of an "mnk.sweep" job. Empty lists take
// the defaults.
type SweepParams struct {
	Boards     []string `json:"boards"` // "RxC"
	Ks         []int    `json:"ks"`
	Algorithms []string `json:"algorithms"` // rungs of ladder.Rungs
	NodeBudget uint64   `json:"node_budget"`
	// CellSeconds stops a cell after this long (0: no time limit). A cell
	// stopped by it has a count that depends on the machine.
	CellSeconds float64 `json:"cell_seconds"`
	TTMB        int     `json:"tt_mb"` // the table of tt, symmetry and solver (0: 64)
	// CSV asks for the rows as the output "csv". (The chart is drawn from
	// the report by the client: analyze sweep --chart, the web's job page.)
	CSV bool `json:"csv,omitempty"`
}

// SweepBoard is a board of a sweep.
type SweepBoard struct{ Rows, Cols int }

func (b SweepBoard) String() string { return fmt.Sprintf("%dx%d", b.Rows, b.Cols) }

// Cells is the board's number of cells.
func (b SweepBoard) Cells() int { return b.Rows * b.Cols }

// ParseSweepBoard reads "RxC", a board of up to mnk.MaxSide on a side.
func ParseSweepBoard(s string) (SweepBoard, error) {
	r, c, err := ParseBoard(s)
	if err != nil {
		return SweepBoard{}, err
	}
	if r < 1 || c < 1 || r > mnk.MaxSide || c > mnk.MaxSide {
		return SweepBoard{}, errors.New(sizeRule(r, c, mnk.MaxSide))
	}
	return SweepBoard{r, c}, nil
}

// sweepCell is one (board, k, rung) of a sweep.
type sweepCell struct {
	Board SweepBoard
	K     int
	Rung  string
}

// SweepSkip is a cell of the grid that is not run, and why.
type SweepSkip struct {
	Board     string `json:"board"`
	K         int    `json:"k"`
	Algorithm string `json:"algorithm,omitempty"` // empty: every rung
	Reason    string `json:"reason"`
}

// sweepGrid is a checked sweep: its cells in report order (boards by
// size, then k, then the rungs in ladder order), the cells left out, and
// its settings with the defaults filled in.
type sweepGrid struct {
	p       SweepParams
	boards  []SweepBoard
	cells   []sweepCell
	skipped []SweepSkip
}

// DefaultSweepParams are what a sweep takes for the parameters it is not
// given: the default grid (DefaultSweepBoards, DefaultSweepKs), every rung
// built, and the default budgets and table.
func DefaultSweepParams() SweepParams {
	return SweepParams{
		// Copies: decoding into a slice reuses its array, which must not
		// be the defaults'.
		Boards: slices.Clone(DefaultSweepBoards), Ks: slices.Clone(DefaultSweepKs), Algorithms: DefaultSweepAlgorithms(),
		NodeBudget: DefaultSweepNodeBudget, CellSeconds: DefaultSweepCellTime.Seconds(), TTMB: DefaultSweepTTMB,
	}
}

// Spec checks the parameters of a new job, as analyze mnk sweep and the
// web's jobs API submit it, and returns the job's spec. A new job names its
// lists: the empty lists that Validate takes for the defaults are for
// records, not for what a user asks.
func (p SweepParams) Spec() (tasks.Spec, error) {
	switch {
	case len(p.Boards) == 0:
		return tasks.Spec{}, tasks.Invalid("--boards: want a list such as 3x3,4x4")
	case len(p.Ks) == 0:
		return tasks.Spec{}, tasks.Invalid("--k: want a list such as 3,4,5")
	case len(p.Algorithms) == 0:
		return tasks.Spec{}, tasks.Invalid("--algorithms: want a list such as minimax,alphabeta")
	}
	if err := p.Validate(); err != nil {
		return tasks.Spec{}, err
	}
	return spec(Sweep{}.Name(), p)
}

// Validate checks the parameters. Its errors name the flag at fault.
func (p SweepParams) Validate() error {
	_, err := p.grid()
	return err
}

func (p SweepParams) grid() (*sweepGrid, error) {
	if len(p.Boards) == 0 {
		p.Boards = DefaultSweepBoards
	}
	if len(p.Ks) == 0 {
		p.Ks = DefaultSweepKs
	}
	if len(p.Algorithms) == 0 {
		p.Algorithms = DefaultSweepAlgorithms()
	}
	if p.TTMB == 0 {
		p.TTMB = DefaultSweepTTMB
	}
	gr := &sweepGrid{p: p}
	for _, s := range p.Boards {
		b, err := ParseSweepBoard(s)
		if err != nil {
			return nil, tasks.Invalid("--boards %v", err)
		}
		if slices.Contains(gr.boards, b) {
			return nil, tasks.Invalid("--boards: %s twice", b)
		}
		gr.boards = append(gr.boards, b)
	}
	slices.SortFunc(gr.boards, func(a, b SweepBoard) int {
		if a.Cells() != b.Cells() {
			return a.Cells() - b.Cells()
		}
		return a.Rows - b.Rows
	})
	ks := slices.Clone(p.Ks)
	slices.Sort(ks)
	for i, k := range ks {
		if k < 1 || k > mnk.MaxSide {
			return nil, tasks.Invalid("--k %d: want 1 to %d", k, mnk.MaxSide)
		}
		if i > 0 && ks[i-1] == k {
			return nil, tasks.Invalid("--k: %d twice", k)
		}
	}
	gr.p.Ks = ks
	var rungs []string
	for _, a := range p.Algorithms {
		if !slices.Contains(ladder.Rungs, a) {
			return nil, tasks.Invalid("--algorithms %s: no such rung (want some of %s)", a, strings.Join(ladder.Rungs, ", "))
		}
		if slices.Contains(rungs, a) {
			return nil, tasks.Invalid("--algorithms: %s twice", a)
		}
		rungs = append(rungs, a)
	}
	slices.SortFunc(rungs, func(a, b string) int { return slices.Index(ladder.Rungs, a) - slices.Index(ladder.Rungs, b) })
	gr.p.Algorithms = rungs
	if p.NodeBudget == 0 {
		return nil, tasks.Invalid("--node-budget 0: want 1 or more nodes")
	}
	if p.CellSeconds < 0 || p.CellSeconds > maxSweepCellTime.Seconds() || math.IsNaN(p.CellSeconds) {
		return nil, tasks.Invalid("--cell-time %gs: want 0 (no limit) to %s", p.CellSeconds, maxSweepCellTime)
	}
	if p.TTMB < 1 || p.TTMB > maxSweepTTMB {
		return nil, tasks.Invalid("--tt-mb %d: want 1 to %d", p.TTMB, maxSweepTTMB)
	}
	for _, b := range gr.boards {
		taken := false
		for _, k := range ks {
			g, err := mnk.New(b.Rows, b.Cols, k)
			if err != nil {
				gr.skipped = append(gr.skipped, SweepSkip{Board: b.String(), K: k, Reason: fmt.Sprintf("k %d > %d, the longer side", k, max(b.Rows, b.Cols))})
				continue
			}
			for _, rung := range rungs {
				if ok, why := rungTakes(g, rung); !ok {
					gr.skipped = append(gr.skipped, SweepSkip{Board: b.String(), K: k, Algorithm: rung, Reason: why})
					continue
				}
				taken = true
				gr.cells = append(gr.cells, sweepCell{Board: b, K: k, Rung: rung})
			}
		}
		if !taken {
			for _, k := range ks {
				if k <= max(b.Rows, b.Cols) {
					return nil, tasks.Invalid("--boards %s: %d cells, too large for every rung of --algorithms %s", b, b.Cells(), strings.Join(rungs, ","))
				}
			}
		}
	}
	if len(gr.cells) == 0 {
		return nil, tasks.Invalid("--k %s: every k is longer than every board's longer side: nothing to run", joinInts(ks))
	}
	return gr, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// Sweep is the "mnk.sweep" kind.
type Sweep struct{}

// Name implements tasks.Kind.
func (Sweep) Name() string { return "mnk.sweep" }

// Version implements tasks.Kind.
func (Sweep) Version() int { return 1 }

// sweepTask is the payload of a task: one cell and its limits.
type sweepTask struct {
	Rows        int     `json:"rows"`
	Cols        int     `json:"cols"`
	K           int     `json:"k"`
	Rung        string  `json:"rung"`
	NodeBudget  uint64  `json:"node_budget"`
	CellSeconds float64 `json:"cell_seconds"`
	TTMB        int     `json:"tt_mb"`
}

// sweepResult is a task's result.
type sweepResult struct {
	Value        mnk.Value `json:"value"` // for the first player; meaningless if Stopped
	Nodes        uint64    `json:"nodes"`
	TableEntries uint64    `json:"table_entries"`
	Stopped      bool      `json:"stopped"`
	ByTime       bool      `json:"by_time,omitempty"` // stopped by the time limit, not the budget
	Seconds      float64   `json:"seconds"`
}

// Plan implements tasks.Kind: one task per cell of the grid.
func (Sweep) Plan(_ context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p SweepParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("mnk.sweep parameters: %v", err)
	}
	gr, err := p.grid()
	if err != nil {
		return nil, err
	}
	sp := &sweepPlan{Results: make(tasks.Results), grid: gr}
	for _, c := range gr.cells {
		payload, _ := json.Marshal(sweepTask{Rows: c.Board.Rows, Cols: c.Board.Cols, K: c.K, Rung: c.Rung,
			NodeBudget: gr.p.NodeBudget, CellSeconds: gr.p.CellSeconds, TTMB: gr.p.TTMB})
		sp.tasks = append(sp.tasks, tasks.Task{ID: fmt.Sprintf("%s-k%d-%s", c.Board, c.K, c.Rung), Payload: payload})
	}
	return sp, nil
}

type sweepPlan struct {
	tasks.Results
	grid  *sweepGrid
	tasks []tasks.Task
}

// Tasks implements tasks.Plan.
func (sp *sweepPlan) Tasks() []tasks.Task { return sp.tasks }

// NewRunner implements tasks.Kind.
func (Sweep) NewRunner(tasks.Env) tasks.Runner { return sweepRunner{} }

type sweepRunner struct{}

// Run solves one cell. A cell stopped by the budget or the time limit is a
// result; a cell stopped because the job or the worker stopped is not
// (ctx's error: the task runs again).
func (sweepRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var t sweepTask
	if err := json.Unmarshal(payload, &t); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.sweep task: %w", err))
	}
	g, err := mnk.New(t.Rows, t.Cols, t.K)
	if err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.sweep task: %w", err))
	}
	// The clock starts before the time limit's, so that a cell stopped by
	// the limit never reports fewer seconds than the limit.
	start := time.Now()
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if t.CellSeconds > 0 {
		cctx, cancel = context.WithTimeout(ctx, time.Duration(t.CellSeconds*float64(time.Second)))
	}
	defer cancel()
	res, err := ladder.Run(cctx, g, t.Rung, ladder.Limits{Nodes: t.NodeBudget, TTBytes: t.TTMB << 20})
	seconds := time.Since(start).Seconds()
	if ctx.Err() != nil {
		return tasks.Output{}, ctx.Err()
	}
	if err != nil {
		// The engine refuses what it will always refuse: a rung or a
		// board it does not take.
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("%s on %s: %w", t.Rung, g.Spec(), err))
	}
	r := sweepResult{Value: res.Value, Nodes: res.Nodes, TableEntries: res.TableEntries, Stopped: res.Stopped, Seconds: seconds}
	if r.Stopped {
		r.Value, r.ByTime = 0, cctx.Err() != nil
	}
	data, err := json.Marshal(r)
	return tasks.Output{Data: data}, err
}
