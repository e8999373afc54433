package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
	widepns "github.com/woprlabs/wopr/pkg/engine/mnk/wide/pns"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// "mnk.solve" finds the exact value of an m,n,k-game. The plan expands the
// top of the tree to the split depth over canonical positions (the same
// expansion as mnk.count, so positions equal up to symmetry are one task);
// every task proves the exact value of its position with a full window,
// and the report runs negamax over the top of the tree. Exact values do not
// depend on who computed them, so the report is the value a single process
// finds, whatever the split or the number of workers, and it gives the
// value of every first move for free.
//
// Workers are handed the full window rather than bounds learnt from
// sibling tasks: tasks run in any order and on any worker, and an exact
// value can be cached and reused by any later job, a bound only by the job
// that asked.
//
// A task proves its position with the method of the job: the alpha-beta
// Solver (boards of up to solve.MaxCells cells), or the proof-number
// pns.Solver (every board up to 8x8), whose pairings decide k = 5 in a
// fraction of the alpha-beta nodes, and which solves the k = 4 boards in a
// half to a seventh of the time (5,5,4, 6,5,4, 6,6,4, 4,7,4, 5,7,4), while
// alpha-beta finds the quick wins of k = 3 the sooner (docs/benchmarks.md).
// "auto" picks by that: alpha-beta for k of 3 or less on boards of at most
// solve.MaxCells cells, pns otherwise.

func init() { tasks.Register(Solve{}) }

// DefaultTTMB is the default size of the transposition table that the
// slots of a worker process share, in MB.
const DefaultTTMB = 64

// MaxTTMB bounds the table of a worker process: every worker allocates
// one, and an allocation that fails kills the worker.
const MaxTTMB = 4096

// maxSolveSplit bounds the split depth: the tasks grow about 20-fold per
// ply on the boards worth distributing.
const maxSolveSplit = 3

// The automatic split is one task at the root (depth 0) for the
// proof-number solver on boards of at most rootSolveCells cells, and the
// root moves (depth 1) otherwise. Deeper splits give more and smaller
// tasks, but every task proves the exact value of its position, and the
// positions two plies down include many a bad reply whose exact value the
// serial search never needs (5,5,4 takes several times the nodes split at
// depth 2; docs/benchmarks.md, "m,n,k-games"). For the proof-number solver
// that holds one ply up already: the root of a draw is two questions, "does
// X win?", refuted for every first move, and "does O win?", refuted by one
// first move, where a task per first move asks both questions of each, the
// second as hard as the first, without the transpositions between them.
// On 2026-12-04 (docs/benchmarks.md, "The split of a proof") the tasks at
// depth 1 took 5 to 30 times the root's time: 7,7,5 9.2 s against 0.37 s,
// 7,8,5 580 s against 18 s, 8,8,4 13.6 s against 0.72 s. 8x8 splits at the
// first moves all the same: 8,8,5 does not close at the root, and its
// first moves are the job's progress.
const (
	autoSolveSplit = 1
	rootSolveCells = 56
)

// splitDepth is the split depth of the job: SplitDepth, or the automatic
// one for -1.
func (p SolveParams) splitDepth() int {
	switch {
	case p.SplitDepth >= 0:
		return p.SplitDepth
	case p.Resolve() == MethodPNS && p.Rows*p.Cols <= rootSolveCells && !p.RootMoves:
		return 0
	}
	return autoSolveSplit
}

// SolveParams are the parameters of an "mnk.solve" job.
type SolveParams struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	K    int `json:"k"`
	// SplitDepth is the ply of the tasks, 0 (one task, the root) to 3; -1
	// chooses (splitDepth): the root for the proof-number solver on boards
	// of up to rootSolveCells cells without RootMoves, the root moves (1)
	// otherwise.
	SplitDepth int `json:"split_depth"`
	// TTMB is the transposition table of each worker process in MB, which
	// its slots share (0: the default, 64).
	TTMB int `json:"tt_mb,omitempty"`
	// RootMoves asks for the value of every first move in the report.
	RootMoves bool `json:"root_moves,omitempty"`
	// Method is the solver: MethodAlphaBeta (also the empty string),
	// MethodPNS, or MethodAuto to pick by the board and k (see
	// SolveParams.Resolve).
	Method string `json:"method,omitempty"`
	// Certificate asks for the strategies that prove the value, as the
	// job's output "certificate" (the text of mnkcert.Certificate.WriteTo,
	// which analyze mnk verify reads; see certificate.go), of at most
	// CertificatePositions positions visited.
	Certificate          bool `json:"certificate,omitempty"`
	CertificatePositions int  `json:"certificate_positions,omitempty"`
	// Nodes, in a job of questions (pns, split at depth 1 or more, as every
	// board past 8x8 is), bounds the nodes of each question task: a task
	// that reaches it reports how far it got (its proof and disproof
	// numbers) instead of an answer. 0: no bound.
	Nodes uint64 `json:"nodes,omitempty"`
}

// The methods of an "mnk.solve" job.
const (
	MethodAlphaBeta = "alphabeta"
	MethodPNS       = "pns"
	MethodAuto      = "auto"
)

// Resolve returns the method that solves the job's tasks: MethodPNS or
// MethodAlphaBeta. Auto picks alpha-beta for k of 3 or less on boards of
// at most solve.MaxCells cells, and pns otherwise.
func (p SolveParams) Resolve() string {
	switch p.Method {
	case MethodPNS:
		return MethodPNS
	case MethodAuto:
		if p.K >= 4 || p.Rows*p.Cols > solve.MaxCells {
			return MethodPNS
		}
	}
	return MethodAlphaBeta
}

// DefaultSolveParams are what a solve takes for the parameters it is not
// given: the default board (DefaultRows x DefaultCols, its DefaultK), the
// split at the root moves, a table of DefaultTTMB per worker process and
// the method picked by the board (MethodAuto).
func DefaultSolveParams() SolveParams {
	return SolveParams{Rows: DefaultRows, Cols: DefaultCols, K: DefaultK(DefaultRows, DefaultCols), SplitDepth: -1, TTMB: DefaultTTMB, Method: MethodAuto}
}

// Spec checks the parameters of a new job, as analyze mnk solve and the
// web's jobs API submit it, and returns the job's spec. A new job names
// its table's size and its method: the zero values that Validate takes
// for the defaults are for records, not for what a user asks.
func (p SolveParams) Spec() (tasks.Spec, error) {
	switch {
	case p.Method == "":
		return tasks.Spec{}, methodError(p.Method)
	case p.TTMB == 0:
		return tasks.Spec{}, ttmbError(p.TTMB)
	}
	var err error
	if p.isWide() {
		_, err = p.validateWide()
	} else {
		_, err = p.Validate()
	}
	if err != nil {
		return tasks.Spec{}, err
	}
	return spec(Solve{}.Name(), p)
}

func methodError(m string) error {
	return tasks.Invalid("--method %q: want %s, %s or %s", m, MethodPNS, MethodAlphaBeta, MethodAuto)
}

func ttmbError(mb int) error {
	return tasks.Invalid("--tt-mb %d: want 1 to %d MB per worker process", mb, MaxTTMB)
}

// Validate checks the parameters and returns the game.
func (p SolveParams) Validate() (*mnk.Game, error) {
	var g *mnk.Game
	var err error
	switch {
	case p.Method != "" && p.Method != MethodAlphaBeta && p.Method != MethodPNS && p.Method != MethodAuto:
		return nil, methodError(p.Method)
	case p.Certificate && (p.CertificatePositions < 1 || p.CertificatePositions > MaxCertificatePositions):
		return nil, tasks.Invalid("--certificate-positions %d: want 1 to %s (a certificate's text is at most 1 GB)",
			p.CertificatePositions, tasks.Thousands(MaxCertificatePositions))
	case !p.Certificate && p.CertificatePositions != 0:
		return nil, tasks.Invalid("--certificate-positions %d: only with --certificate", p.CertificatePositions)
	case p.Nodes > 0 && (p.Resolve() != MethodPNS || p.RootMoves || p.Certificate || p.splitDepth() == 0):
		return nil, tasks.Invalid("--nodes bounds the tasks of a pns job of questions: --split-depth 1 or more (the default past 56 cells), without --root-moves or --certificate")
	case p.Certificate && p.Resolve() == MethodAlphaBeta && p.Rows*p.Cols > solve.MaxCells:
		return nil, tasks.Invalid("--certificate with --method alphabeta takes boards of up to %d cells, not %dx%d (--method pns takes 8x8)",
			solve.MaxCells, p.Rows, p.Cols)
	case p.Resolve() == MethodPNS:
		g, err = newGame(p.Rows, p.Cols, p.K, pns.MaxCells, "exact solving", "8x8")
	default:
		g, err = newGame(p.Rows, p.Cols, p.K, solve.MaxCells, "exact solving with alpha-beta", "6x6, 5x7; the pns method takes up to 11x11")
	}
	if err != nil {
		return nil, err
	}
	if p.SplitDepth != -1 && (p.SplitDepth < 0 || p.SplitDepth > min(maxSolveSplit, g.Cells())) {
		return nil, tasks.Invalid("split depth %d is out of range for a %dx%d board: want -1 (automatic) or 0 (the root) to %d",
			p.SplitDepth, p.Rows, p.Cols, min(maxSolveSplit, g.Cells()))
	}
	if p.SplitDepth == 0 && p.RootMoves {
		return nil, tasks.Invalid("--root-moves needs a task for each first move: --split-depth 1 or more (or -1), not 0")
	}
	if p.TTMB < 0 || p.TTMB > MaxTTMB {
		return nil, ttmbError(p.TTMB)
	}
	return g, nil
}

// Solve is the "mnk.solve" kind.
type Solve struct{}

// Name implements tasks.Kind.
func (Solve) Name() string { return "mnk.solve" }

// Version implements tasks.Kind.
func (Solve) Version() int { return 1 }

// solveTask is the payload of one task: a canonical position at the split
// depth, the table size to solve it with, and the method (empty for
// alpha-beta, so that the payloads, and the results cached by them, of
// alpha-beta tasks are those of the jobs before pns). With
// CertificatePositions, the task builds the certificate of the position
// (the empty board) instead, of at most that many positions.
type solveTask struct {
	Rows                 int    `json:"rows"`
	Cols                 int    `json:"cols"`
	K                    int    `json:"k"`
	X                    uint64 `json:"x"`
	O                    uint64 `json:"o"`
	TTMB                 int    `json:"tt_mb"`
	Method               string `json:"method,omitempty"`
	CertificatePositions int    `json:"certificate_positions,omitempty"`
	// CertificatePart, with CertificatePositions, builds a part of a
	// certificate in parts (certificate.go) from the task's position
	// instead of the whole certificate.
	CertificatePart bool `json:"certificate_part,omitempty"`
	// Question, with the pns method, asks one question instead of the
	// value: "x" does X win from the position, "o" does O (see
	// solve_questions.go).
	Question string `json:"question,omitempty"`
	// XHi and OHi are the stones on cells 64 to 127 of a board past 8x8
	// (package wide), whose cells 0 to 63 are X and O.
	XHi uint64 `json:"x_hi,omitempty"`
	OHi uint64 `json:"o_hi,omitempty"`
	// Nodes bounds a question task's search (SolveParams.Nodes).
	Nodes uint64 `json:"nodes,omitempty"`
}

// solveResult is what a task returns: the exact value of its position for
// the side to move, a principal variation (cells, in the frame of the
// task's position) and the work it took.
type solveResult struct {
	Value     mnk.Value `json:"value"`
	PV        []int     `json:"pv"`
	Nodes     uint64    `json:"nodes"`
	TTHits    uint64    `json:"tt_hits"`
	CacheHits uint64    `json:"cache_hits"`
	Seconds   float64   `json:"seconds"`
	// Wins answers a question task: the side asked about wins. GoalMove
	// is the cell plus one of the move with which the side to move
	// reached its goal in the question (0: none known).
	Wins     bool `json:"wins,omitempty"`
	GoalMove int  `json:"goal_move,omitempty"`
	// Undecided says that a question task reached its node bound, and
	// Proof and Disproof are the numbers it left at its root, for the
	// side asked about: how far it got.
	Undecided bool   `json:"undecided,omitempty"`
	Proof     uint32 `json:"proof,omitempty"`
	Disproof  uint32 `json:"disproof,omitempty"`
}

// Plan implements tasks.Kind.
func (Solve) Plan(ctx context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p SolveParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("mnk.solve parameters: %v", err)
	}
	if p.isWide() {
		g, err := p.validateWide()
		if err != nil {
			return nil, err
		}
		return newWidePlan(g, p), nil
	}
	g, err := p.Validate()
	if err != nil {
		return nil, err
	}
	return newSolvePlan(ctx, g, p)
}

type solvePlan struct {
	tasks.Results
	g      *mnk.Game
	params SolveParams
	split  int
	layers [][]node
	all    []tasks.Task // the certificate's task, if asked for, then tasks
	tasks  []tasks.Task // the solve tasks
	where  []int        // task index -> node in the last layer
	// verified is the certificate task's result as Check verified it.
	verified *verifiedCertificate
	// certParts are the tasks of a certificate in parts, the root's
	// first, and checked their results as Check verified them
	// (certificate.go).
	certParts []certPart
	checked   map[string]*checkedPart
	// questions: the tasks ask "does X win?" at the split depth, and one
	// task, rootQuestion, "does O win?" at the root (solve_questions.go).
	questions bool
	leaves    []uint8 // "does X win?" by task, as decoded so far (xAnswers)
}

func newSolvePlan(ctx context.Context, g *mnk.Game, p SolveParams) (*solvePlan, error) {
	sp := &solvePlan{Results: make(tasks.Results), g: g, params: p}
	ex := &countPlan{g: g} // its expand merges children by canonical form
	root := node{pos: mnk.Position{}, orbit: 1, paths: 1, cpaths: 1, task: -1}
	sp.layers = [][]node{{root}}
	split := p.splitDepth()
	for d := 0; ; d++ {
		open := 0
		for _, n := range sp.layers[d] {
			if n.res == mnk.Ongoing {
				open++
			}
		}
		if d == split || open == 0 {
			sp.split = d
			break
		}
		next, err := ex.expand(ctx, sp.layers[d])
		if err != nil {
			return nil, err
		}
		sp.layers = append(sp.layers, next)
	}
	last := sp.layers[sp.split]
	for i := range last {
		if last[i].res == mnk.Ongoing {
			sp.where = append(sp.where, i)
		}
	}
	slices.SortFunc(sp.where, func(a, b int) int {
		pa, pb := last[a].pos, last[b].pos
		if pa.X != pb.X {
			return cmpU(pa.X, pb.X)
		}
		return cmpU(pa.O, pb.O)
	})
	ttmb := p.TTMB
	if ttmb == 0 {
		ttmb = DefaultTTMB
	}
	method := ""
	if p.Resolve() == MethodPNS {
		method = MethodPNS
	}
	switch {
	case p.Certificate && method == MethodPNS && sp.split >= 1:
		sp.planCertificateParts(ttmb)
	case p.Certificate:
		// First: it proves the root again, about as long as the whole
		// solve on one worker, and the longest task.
		payload, _ := json.Marshal(solveTask{Rows: g.Rows, Cols: g.Cols, K: g.K, TTMB: ttmb, Method: method, CertificatePositions: p.CertificatePositions})
		sp.all = append(sp.all, tasks.Task{ID: certificateTask, Payload: payload})
	}
	question := ""
	if sp.questions = method == MethodPNS && sp.split >= 1 && !p.RootMoves; sp.questions {
		question = "x"
		payload, _ := json.Marshal(solveTask{Rows: g.Rows, Cols: g.Cols, K: g.K, TTMB: ttmb, Method: method, Question: "o", Nodes: p.Nodes})
		sp.all = append(sp.all, tasks.Task{ID: rootQuestion, Payload: payload})
	}
	width := len(strconv.Itoa(max(len(sp.where)-1, 0)))
	for ti, i := range sp.where {
		n := &last[i]
		n.task = ti
		payload, _ := json.Marshal(solveTask{Rows: g.Rows, Cols: g.Cols, K: g.K, X: n.pos.X, O: n.pos.O, TTMB: ttmb, Method: method, Question: question, Nodes: p.Nodes})
		sp.all = append(sp.all, tasks.Task{ID: fmt.Sprintf("s%0*d", width, ti), Payload: payload})
	}
	sp.tasks = sp.all[len(sp.all)-len(sp.where):]
	return sp, nil
}

// Tasks implements tasks.Plan.
func (sp *solvePlan) Tasks() []tasks.Task { return sp.all }

// SolveReport is the report of an "mnk.solve" job. Values are for the
// first player; cells are [row, col].
type SolveReport struct {
	Board string `json:"board"`
	Rows  int    `json:"rows"`
	Cols  int    `json:"cols"`
	K     int    `json:"k"`
	// Method is the solver that proved the tasks: "alphabeta" or "pns".
	Method string `json:"method"`
	// Value is "win", "draw" or "loss" for the first player ("unknown" if
	// tasks failed).
	Value     string   `json:"value"`
	BestMoves [][2]int `json:"best_moves"`
	// BestMovesPartial says that BestMoves holds one best first move of
	// several that may be: a job split at the root (depth 0) proves one,
	// and so does a job of questions that finds a draw.
	BestMovesPartial bool `json:"best_moves_partial,omitempty"`
	// Questions says that the tasks asked "does X win?" at the split
	// depth and "does O win?" at the root rather than proving values
	// (solve_questions.go): the principal variation is empty unless X
	// wins.
	Questions  bool              `json:"questions,omitempty"`
	PV         [][2]int          `json:"pv"`
	MoveValues map[string]string `json:"move_values,omitempty"`
	Nodes      uint64            `json:"nodes"`
	TTHits     uint64            `json:"tt_hits"`
	SplitDepth int               `json:"split_depth"`
	// TaskDetails lists each task's position, value (for the side to move
	// there), nodes and seconds.
	TaskDetails []SolveTaskDetail `json:"task_details"`
	// PositionCacheHits counts positions whose value came from a worker's
	// persistent store of proven positions.
	PositionCacheHits uint64 `json:"position_cache_hits"`
	// Certificate describes the certificate, when the job asked for one.
	Certificate *SolveCertificate `json:"certificate,omitempty"`
	// TaskSeconds is the sum of the times of the tasks this job computed,
	// about what one worker would have taken; Speedup is TaskSeconds over
	// the job's elapsed seconds, 0 when every task came from the result
	// cache. CachedTaskSeconds is the time the tasks answered from the
	// result cache took when an earlier job computed them: in neither
	// figure. When the workers share cores with other work, task times
	// stretch and Speedup overstates the gain: a run with one worker gives
	// the real figure.
	TaskSeconds       float64 `json:"task_seconds"`
	CachedTaskSeconds float64 `json:"cached_task_seconds"`
	Speedup           float64 `json:"speedup"`
	// NodeBound is the job's bound on the nodes of a task (--nodes), 0 if
	// none.
	NodeBound uint64 `json:"node_bound,omitempty"`
}

// addTaskTime adds the time of task id, computed by this job or answered
// from the result cache (sum), to the report's task times and speedup.
func (r *SolveReport) addTaskTime(sum tasks.Summary, id string, seconds float64) {
	if sum.Cached(id) {
		r.CachedTaskSeconds += seconds
	} else {
		r.TaskSeconds += seconds
	}
	r.Speedup = 0
	if sum.Elapsed > 0 {
		r.Speedup = r.TaskSeconds / sum.Elapsed.Seconds()
	}
}

// taskTime says what the tasks took: computed by this job, with the
// speedup, and answered from the result cache.
func (r *SolveReport) taskTime() string {
	switch {
	case r.TaskSeconds == 0 && r.CachedTaskSeconds > 0:
		return fmt.Sprintf("none computed: every task came from the result cache (%.3f s when computed)", r.CachedTaskSeconds)
	case r.CachedTaskSeconds > 0:
		return fmt.Sprintf("%.3f s computed (speedup %.2f over one worker); %.3f s more from the result cache", r.TaskSeconds, r.Speedup, r.CachedTaskSeconds)
	}
	return fmt.Sprintf("%.3f s (speedup %.2f over one worker)", r.TaskSeconds, r.Speedup)
}

// SolveTaskDetail is one task of a solve report. Value is for the side to
// move in the task's position.
type SolveTaskDetail struct {
	Task     string `json:"task"`
	Position string `json:"position"`
	ToMove   string `json:"to_move"`
	// Question is the question a task of questions asked ("does X
	// win?"), whose answer is Value ("X does not win").
	Question string  `json:"question,omitempty"`
	Value    string  `json:"value"`
	Nodes    uint64  `json:"nodes"`
	Seconds  float64 `json:"seconds"`
	// Undecided says that the task reached the job's node bound, and
	// Proof and Disproof are the numbers it left (2^31: infinite).
	Undecided bool   `json:"undecided,omitempty"`
	Proof     uint32 `json:"proof,omitempty"`
	Disproof  uint32 `json:"disproof,omitempty"`
	// FirstMoves are the first moves whose positions the task stands for
	// (a task after a first move of a board past 8x8), [row, col].
	FirstMoves [][2]int `json:"first_moves,omitempty"`
}

// Report implements tasks.Plan.
func (sp *solvePlan) Report(ctx context.Context, sum tasks.Summary) (tasks.Report, error) {
	rep, err := sp.solveReport(sum)
	if err != nil {
		return nil, err
	}
	if sp.params.Certificate {
		if err := sp.certificate(ctx, sum, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// solveReport is the report of the solve tasks: the value, the best moves
// and the principal variation, by negamax over the top of the tree.
func (sp *solvePlan) solveReport(sum tasks.Summary) (*SolveReport, error) {
	if sp.questions {
		return sp.questionReport(sum)
	}
	g := sp.g
	rep := &SolveReport{
		Board: fmt.Sprintf("%dx%d", g.Rows, g.Cols), Rows: g.Rows, Cols: g.Cols, K: g.K, Method: sp.params.Resolve(),
		Value: "unknown", BestMoves: [][2]int{}, PV: [][2]int{},
		SplitDepth: sp.split, TaskDetails: []SolveTaskDetail{},
	}
	values := make([][]mnk.Value, len(sp.layers))
	known := make([][]bool, len(sp.layers))
	for d, layer := range sp.layers {
		values[d] = make([]mnk.Value, len(layer))
		known[d] = make([]bool, len(layer))
		for i, n := range layer {
			switch n.res {
			case mnk.Draw:
				values[d][i], known[d][i] = mnk.Drawn, true
			case mnk.XWin, mnk.OWin:
				values[d][i], known[d][i] = mnk.Loss, true // the side to move has lost
			}
		}
	}
	pvs := make([][]int, len(sp.tasks))
	last := sp.layers[sp.split]
	for ti, t := range sp.tasks {
		i := sp.where[ti]
		data, ok := sp.Result(t.ID)
		if !ok {
			continue // failed: the value stays unknown
		}
		var r solveResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
		}
		if r.Value < mnk.Loss || r.Value > mnk.Win {
			return nil, fmt.Errorf("result of task %s: value %d", t.ID, r.Value)
		}
		values[sp.split][i], known[sp.split][i] = r.Value, true
		pvs[ti] = r.PV
		rep.Nodes += r.Nodes
		rep.TTHits += r.TTHits
		rep.PositionCacheHits += r.CacheHits
		rep.addTaskTime(sum, t.ID, r.Seconds)
		rep.TaskDetails = append(rep.TaskDetails, SolveTaskDetail{
			Task: t.ID, Position: g.String(last[i].pos), ToMove: toMove(last[i].pos), Value: r.Value.String(), Nodes: r.Nodes, Seconds: r.Seconds,
		})
	}
	// Negamax over the top of the tree.
	for d := len(sp.layers) - 2; d >= 0; d-- {
		for i, n := range sp.layers[d] {
			if n.res != mnk.Ongoing {
				continue
			}
			best, ok := mnk.Loss, true
			for _, k := range n.kids {
				ok = ok && known[d+1][k]
				best = max(best, -values[d+1][k])
			}
			values[d][i], known[d][i] = best, ok
		}
	}
	if !known[0][0] {
		return rep, nil
	}
	v := values[0][0]
	rep.Value = valueWord(v)

	// The principal variation: the first move (row-major) that keeps the
	// value at each ply of the top, then the line of the task reached.
	pv, err := sp.topLine(pvs, func(d, i, j int) bool { return -values[d+1][j] == values[d][i] })
	if err != nil {
		return nil, fmt.Errorf("principal variation: %w", err)
	}
	rep.PV = pv
	if sp.split == 0 {
		// One task at the root proves the value and one best first move,
		// the first of its principal variation; the others are not
		// searched (--root-moves splits at the first moves).
		if len(pv) > 0 {
			rep.BestMoves, rep.BestMovesPartial = append(rep.BestMoves, pv[0]), true
		}
		return rep, nil
	}

	// The first moves: each leads to an orbit of layer 1.
	index := map[mnk.Position]int{}
	for i, n := range sp.layers[1] {
		index[n.pos] = i
	}
	if sp.params.RootMoves {
		rep.MoveValues = map[string]string{}
	}
	for e := g.Empty(mnk.Position{}); e != 0; e &= e - 1 {
		c := bits.TrailingZeros64(e)
		q, _ := g.Play(mnk.Position{}, c)
		cq, _ := g.Canonical(q)
		mv := -values[1][index[cq]]
		if mv == v {
			rep.BestMoves = append(rep.BestMoves, cellRC(c))
		}
		if rep.MoveValues != nil {
			rc := cellRC(c)
			rep.MoveValues[fmt.Sprintf("%d,%d", rc[0], rc[1])] = mv.String()
		}
	}

	return rep, nil
}

// topLine is a line from the empty board down the top of the tree: at
// each ply the first move (row-major) into a child j of node i of layer d
// for which keeps(d, i, j) holds, then at the split depth the line of the
// task reached (lines[task], in its canonical frame) carried over to the
// frame of the game.
func (sp *solvePlan) topLine(lines [][]int, keeps func(d, i, j int) bool) ([][2]int, error) {
	g := sp.g
	line := [][2]int{}
	p, d, i := mnk.Position{}, 0, 0
	for sp.layers[d][i].res == mnk.Ongoing {
		if d == sp.split {
			n := sp.layers[d][i]
			for _, c := range mapCells(g, n.pos, p, lines[n.task]) {
				line = append(line, cellRC(c))
			}
			break
		}
		next := map[mnk.Position]int{}
		for j, n := range sp.layers[d+1] {
			next[n.pos] = j
		}
		moved := false
		for e := g.Empty(p); e != 0 && !moved; e &= e - 1 {
			c := bits.TrailingZeros64(e)
			q, _ := g.Play(p, c)
			cq, _ := g.Canonical(q)
			if j := next[cq]; keeps(d, i, j) {
				line = append(line, cellRC(c))
				p, d, i, moved = q, d+1, j, true
			}
		}
		if !moved {
			return nil, fmt.Errorf("no move of %s keeps its value", g.String(p))
		}
	}
	return line, nil
}

// toMove names the side to move in p.
func toMove(p mnk.Position) string {
	if p.XToMove() {
		return "X"
	}
	return "O"
}

// cellRC converts a cell to [row, col].
func cellRC(c int) [2]int { return [2]int{c / 8, c % 8} }

// mapCells carries cells from the frame of the canonical position canon to
// the frame of p, one of its images.
func mapCells(g *mnk.Game, canon, p mnk.Position, cells []int) []int {
	for s := range g.NumSymmetries() {
		if g.Transform(canon, s) != p {
			continue
		}
		out := make([]int, len(cells))
		for i, c := range cells {
			out[i] = bits.TrailingZeros64(g.Transform(mnk.Position{X: 1 << uint(c)}, s).X)
		}
		return out
	}
	return nil // p is not an image of canon: cannot happen
}

// Text implements tasks.Report.
func (r *SolveReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "m,n,k-game %d,%d,%d: %s, %s, %d in a row\n", r.Rows, r.Cols, r.K, tasks.Count(r.Rows, "row"), tasks.Count(r.Cols, "column"), r.K)
	row := func(label, format string, args ...any) { tasks.Row(&b, label, format, args...) }
	row("method", "%s", methodName(r.Method))
	row("value (first player)", "%s", r.Value)
	wideBoard := r.Rows > mnk.MaxSide || r.Cols > mnk.MaxSide
	switch {
	case r.BestMovesPartial && wideBoard:
		row("best first moves", "%s (one of them)", cellList(r.BestMoves))
	case r.BestMovesPartial:
		row("best first moves", "%s (one of them; --root-moves gives every first move's value)", cellList(r.BestMoves))
	default:
		row("best first moves", "%s", cellList(r.BestMoves))
	}
	switch {
	case r.Questions && len(r.PV) == 0 && r.Value == "unknown":
		row("principal variation", "not computed: the value is not known")
	case r.Questions && len(r.PV) == 0 && wideBoard:
		row("principal variation", "not computed on boards past 8x8")
	case r.Questions && len(r.PV) == 0:
		row("principal variation", "not computed: the tasks asked whether X wins, and X does not (--split-depth 0 gives one)")
	default:
		row("principal variation", "%s", cellList(r.PV))
	}
	if r.MoveValues != nil {
		keys := make([]string, 0, len(r.MoveValues))
		for k := range r.MoveValues {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			var ra, ca, rb, cb int
			fmt.Sscanf(a, "%d,%d", &ra, &ca)
			fmt.Sscanf(b, "%d,%d", &rb, &cb)
			return (ra*8 + ca) - (rb*8 + cb)
		})
		for i, k := range keys {
			label := ""
			if i == 0 {
				label = "first moves"
			}
			row(label, "%-5s %s", k, r.MoveValues[k])
		}
	}
	if r.NodeBound > 0 || wideBoard {
		// Every task's answer, or how far it got: the frontier.
		for i, t := range r.TaskDetails {
			label := ""
			if i == 0 {
				label = "tasks"
			}
			where := "the root"
			if len(t.FirstMoves) > 0 {
				where = "after " + cellList(t.FirstMoves[:1])
				if n := len(t.FirstMoves) - 1; n > 0 {
					where += fmt.Sprintf(" (and %d symmetric)", n)
				}
			}
			row(label, "%s %s, %s %s, %s nodes, %.1f s", t.Task, where, t.Question, t.Value, tasks.Thousands(t.Nodes), t.Seconds)
		}
		if r.NodeBound > 0 {
			row("node bound", "%s a task", tasks.Thousands(r.NodeBound))
		}
	}
	row("nodes", "%s", tasks.Thousands(r.Nodes))
	if r.Method != MethodPNS { // the proof-number solver does not count them
		row("table hits", "%s", tasks.Thousands(r.TTHits))
	}
	row("split depth", "%d", r.SplitDepth)
	if c := r.Certificate; c != nil {
		matchings := ""
		if c.Matchings > 0 {
			matchings = ", " + tasks.Thousands(uint64(c.Matchings)) + " matchings"
		}
		parts := ""
		if c.Parts > 0 {
			parts = fmt.Sprintf(" (%d parts)", c.Parts)
		}
		row("certificate", "%d strategies%s, %s moves, %s pairings%s, %s bytes, in %.1f s; verified (%s positions)",
			c.Strategies, parts, tasks.Thousands(uint64(c.Moves)), tasks.Thousands(uint64(c.Pairings)), matchings, tasks.Thousands(uint64(c.Bytes)),
			c.Seconds, tasks.Thousands(uint64(c.Positions)))
	}
	var most SolveTaskDetail
	for _, t := range r.TaskDetails {
		if t.Nodes > most.Nodes {
			most = t
		}
	}
	if most.Task != "" && r.NodeBound == 0 && !wideBoard { // else every task is listed above
		row("largest task", "%s %s (%s to move: %s): %s nodes, %.3f s", most.Task, most.Position, most.ToMove, most.Value, tasks.Thousands(most.Nodes), most.Seconds)
		if r.Questions {
			row("questions", "does X win? at depth %d, a task a position; does O win? at the root", r.SplitDepth)
		}
	}
	row("task time", "%s", r.taskTime())
	return b.String()
}

// methodName says what a method is.
func methodName(m string) string {
	if m == MethodPNS {
		return "pns (proof-number search)"
	}
	return m + " (alpha-beta search)"
}

// cellList formats cells as "(r,c) (r,c) ...".
func cellList(cells [][2]int) string {
	if len(cells) == 0 {
		return "-"
	}
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprintf("%d,%d", c[0], c[1])
	}
	return strings.Join(parts, " ")
}

// solvePlies is how many plies below a task's root the solver consults and
// fills the worker's persistent store of proven values: a Badger read costs
// about a hundred nodes, so only the few positions near the root, which
// another task or a rerun can reuse whole, belong there.
const solvePlies = 2

// NewRunner implements tasks.Kind.
func (Solve) NewRunner(env tasks.Env) tasks.Runner {
	r := &solveRunner{cache: env.Cache, tables: sharedTables.Get(env)}
	if env.Dir != "" {
		r.dir = filepath.Join(env.Dir, "mnk.solve")
	}
	return r
}

// sharedTables is the solveTables of a worker process.
var sharedTables = tasks.NewShared(func() *solveTables { return &solveTables{} })

// solveTables holds the transposition table of the last game solved, which
// the runners of one worker process share (tasks.Shared): the tasks of a
// job meet the same positions below their roots, and with a table each the
// slots of a worker proved them once each. One table at a time bounds the
// memory to the job's --tt-mb per process, whatever the slots.
type solveTables struct {
	mu     sync.Mutex
	params solveTask // the game, table size and method; no position
	table  *solve.Table
	proof  *pns.Table
	wide   *widepns.Table // of a board past 8x8 (solve_wide.go)
	// savedAt is when proof was last saved or loaded (table.go).
	savedAt time.Time
}

// tableKey is t without its position, question and node bound: one table
// answers every question about the game.
func (t solveTask) tableKey() solveTask {
	t.X, t.O, t.XHi, t.OHi, t.Question, t.Nodes = 0, 0, 0, 0, "", 0
	return t
}

// get returns the table for t's game, size and method (an alpha-beta or a
// proof-number table), replacing another's.
func (s *solveTables) get(t solveTask, g *mnk.Game, dir string) (*solve.Table, *pns.Table) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := t.tableKey()
	if s.params != key || s.table == nil && s.proof == nil {
		s.params, s.table, s.proof, s.wide = key, nil, nil, nil
		if t.Method == MethodPNS {
			s.proof = pns.NewTable(g, t.TTMB<<20)
			if loadTableFile(s.proof, tablePath(dir, g, t.TTMB)) {
				s.savedAt = time.Now()
			}
		} else {
			s.table = solve.NewTable(g, t.TTMB<<20)
		}
	}
	return s.table, s.proof
}

// solveRunner solves with a solve.Solver or pns.Solver of its own on the shared
// table.
type solveRunner struct {
	cache  tasks.Cache
	dir    string // where the proof-number table goes across a restart, or ""
	tables *solveTables
	solver *solve.Solver
	proof  *pns.Solver
	wide   *widepns.Solver
}

func (r *solveRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var t solveTask
	if err := json.Unmarshal(payload, &t); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.solve task: %w", err))
	}
	if t.isWide() {
		return r.runWide(ctx, t)
	}
	g, err := SolveParams{Rows: t.Rows, Cols: t.Cols, K: t.K, SplitDepth: -1, TTMB: t.TTMB, Method: t.Method}.Validate()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	pos := mnk.Position{X: t.X, O: t.O}
	if err := g.Valid(pos); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.solve task position: %w", err))
	}
	if t.CertificatePositions > 0 {
		return runCertificate(ctx, g, pos, t, r.dir)
	}
	if t.Question != "" && (t.Method != MethodPNS || t.Question != "x" && t.Question != "o") {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.solve task: question %q with method %q", t.Question, t.Method))
	}
	table, proof := r.tables.get(t, g, r.dir)
	if proof != nil {
		path := tablePath(r.dir, g, t.TTMB)
		stop := r.tables.saveFileEvery(proof, path)
		defer stop()
		var out tasks.Output
		if t.Question != "" {
			out, err = r.runQuestion(ctx, proof, pos, t.Question == "x", t.Nodes)
		} else {
			out, err = r.runProof(ctx, proof, pos)
		}
		if err != nil && ctx.Err() != nil {
			// Interrupted: the table goes to disk, for the task's next
			// run (table.go).
			r.tables.saveFile(proof, path)
		}
		return out, err
	}
	if r.solver == nil || r.solver.Table() != table {
		r.solver = table.NewSolver()
	}
	s := r.solver
	if r.cache != nil {
		s.SetCache(valueCache{cache: r.cache, prefix: fmt.Appendf(nil, "mnk-solve/%dx%dk%d/", g.Rows, g.Cols, g.K)}, pos.Ply()+solvePlies)
	}
	start := time.Now()
	nodes, hits, chits := s.Nodes(), s.TTHits(), s.CacheHits()
	v, err := s.Solve(ctx, pos)
	if err != nil {
		return tasks.Output{}, err
	}
	pv, err := s.PV(ctx, pos, v)
	if err != nil {
		return tasks.Output{}, err
	}
	res := solveResult{
		Value: v, PV: pv, Nodes: s.Nodes() - nodes, TTHits: s.TTHits() - hits, CacheHits: s.CacheHits() - chits,
		Seconds: time.Since(start).Seconds(),
	}
	data, err := json.Marshal(res)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data, CacheHits: int64(res.CacheHits)}, nil
}

// newProofSolver returns a pns.Solver on table with relevance zones on:
// the same answers (pns.TestZonesAgree), fewer nodes where the proofs are
// local (7,8,5 from the root: 1,061,506 nodes without, 883,688 with).
func newProofSolver(table *pns.Table) *pns.Solver {
	s := table.NewSolver()
	s.SetZones(true)
	return s
}

// runProof solves pos with a pns.Solver on the shared table. The
// proof-number solver keeps no values in the worker's store of proven
// positions: it proves one question at a time, and most positions below a
// task's root get only one answered, a bound rather than a value.
func (r *solveRunner) runProof(ctx context.Context, table *pns.Table, pos mnk.Position) (tasks.Output, error) {
	if r.proof == nil || r.proof.Table() != table {
		r.proof = newProofSolver(table)
	}
	s := r.proof
	start := time.Now()
	nodes := s.Nodes()
	v, err := s.Solve(ctx, pos)
	if err != nil {
		return tasks.Output{}, err
	}
	pv, err := s.PV(ctx, pos, v)
	if err != nil {
		return tasks.Output{}, err
	}
	data, err := json.Marshal(solveResult{Value: v, PV: pv, Nodes: s.Nodes() - nodes, Seconds: time.Since(start).Seconds()})
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// valueCache stores proven values of shallow positions in the worker's
// Badger cache: one byte, the value plus one.
type valueCache struct {
	cache  tasks.Cache
	prefix []byte
}

func (c valueCache) key(p mnk.Position) []byte { return positionKey(c.prefix, p) }

func (c valueCache) LoadValue(p mnk.Position) (mnk.Value, bool) {
	v, ok, err := c.cache.Get(c.key(p))
	if err != nil || !ok || len(v) != 1 || v[0] > 2 {
		return 0, false
	}
	return mnk.Value(v[0]) - 1, true
}

func (c valueCache) StoreValue(p mnk.Position, v mnk.Value) {
	_ = c.cache.Put(c.key(p), []byte{byte(v + 1)})
}
