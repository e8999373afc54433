package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/engine/mnk/wide"
	widepns "github.com/woprlabs/wopr/pkg/engine/mnk/wide/pns"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Boards past 8x8 (9x9 to 11x11, package wide) are solved by the same
// proof-number search on 128-bit sets (package wide/pns), as a job of
// questions split at the first moves: a task for each first move up to
// symmetry asks "does X win after it?", and one at the root "does O win?"
// (solve_questions.go). These are the boards where search stops: 9,9,5 is
// open, and its first moves are each a job of hours or more, so the job
// takes a node bound a task (--nodes), and a task that reaches it reports
// its proof and disproof numbers, how far it got, instead of an answer.
//
// What the wide path lacks beside the 8x8 one: certificates, the value of
// every first move (--root-moves) and a principal variation (the value is
// still exact). A task's table is saved across a restart as on 8x8
// (table.go), under its own name; a node bound counts the nodes of one
// run, so a task interrupted and resumed may search more in all.

// wideFrom is the side past which a board takes the wide path: package
// mnk's largest. Tests lower it to run small boards through the wide path
// and compare it with the 8x8 one.
var wideFrom = mnk.MaxSide

func (p SolveParams) isWide() bool { return p.Rows > wideFrom || p.Cols > wideFrom }
func (t solveTask) isWide() bool   { return t.Rows > wideFrom || t.Cols > wideFrom }

// validateWide checks the parameters of a job on a board past 8x8 and
// returns its game.
func (p SolveParams) validateWide() (*wide.Game, error) {
	g, err := wide.New(p.Rows, p.Cols, p.K)
	switch {
	case errors.Is(err, mnk.ErrBoardSize):
		msg := "board " + sizeRule(p.Rows, p.Cols, wide.MaxSide)
		if p.Rows <= search.MaxBigSide && p.Cols <= search.MaxBigSide {
			msg += fmt.Sprintf(" (mnk search takes boards up to %dx%d)", search.MaxBigSide, search.MaxBigSide)
		}
		return nil, tasks.Invalid("%s", msg)
	case err != nil:
		return nil, tasks.Invalid("%v", err)
	case p.Method != "" && p.Method != MethodAlphaBeta && p.Method != MethodPNS && p.Method != MethodAuto:
		return nil, methodError(p.Method)
	case p.Resolve() != MethodPNS:
		return nil, tasks.Invalid("--method %s takes boards of up to 8x8: a %dx%d board is solved by pns (--method pns or auto)", p.Method, p.Rows, p.Cols)
	case p.Certificate || p.CertificatePositions != 0:
		return nil, tasks.Invalid("--certificate takes boards of up to 8x8, not %dx%d", p.Rows, p.Cols)
	case p.RootMoves:
		return nil, tasks.Invalid("--root-moves takes boards of up to 8x8: on %dx%d the tasks ask whether X wins after each first move, not its value", p.Rows, p.Cols)
	case p.SplitDepth != -1 && p.SplitDepth != 1:
		return nil, tasks.Invalid("--split-depth %d: a %dx%d board splits at the first moves (1, or -1 for automatic)", p.SplitDepth, p.Rows, p.Cols)
	case p.TTMB < 0 || p.TTMB > MaxTTMB:
		return nil, ttmbError(p.TTMB)
	}
	return g, nil
}

// widePlan is the plan of a job on a board past 8x8: the root's question,
// then a question for each first move up to symmetry.
type widePlan struct {
	tasks.Results
	g      *wide.Game
	params SolveParams
	firsts []wideFirst
	all    []tasks.Task
}

// wideFirst is a first move up to symmetry: the canonical position after
// it, the cells that lead to it (row-major), and its task.
type wideFirst struct {
	pos   wide.Position
	cells []int
	id    string
}

func newWidePlan(g *wide.Game, p SolveParams) *widePlan {
	wp := &widePlan{Results: make(tasks.Results), g: g, params: p}
	ttmb := p.TTMB
	if ttmb == 0 {
		ttmb = DefaultTTMB
	}
	index := map[wide.Position]int{}
	for r := range g.Rows {
		for c := range g.Cols {
			cell := g.Cell(r, c)
			q, _ := g.Play(wide.Position{}, cell)
			cq, _ := g.CanonicalSym(q)
			i, ok := index[cq]
			if !ok {
				i = len(wp.firsts)
				index[cq] = i
				wp.firsts = append(wp.firsts, wideFirst{pos: cq})
			}
			wp.firsts[i].cells = append(wp.firsts[i].cells, cell)
		}
	}
	// Tasks in the order of the 8x8 path: by canonical position.
	slices.SortFunc(wp.firsts, func(a, b wideFirst) int {
		switch {
		case a.pos.Less(b.pos):
			return -1
		case b.pos.Less(a.pos):
			return 1
		}
		return 0
	})
	task := func(id string, pos wide.Position, question string) tasks.Task {
		payload, _ := json.Marshal(solveTask{Rows: g.Rows, Cols: g.Cols, K: g.K, X: pos.X.Lo, O: pos.O.Lo, XHi: pos.X.Hi, OHi: pos.O.Hi,
			TTMB: ttmb, Method: MethodPNS, Question: question, Nodes: p.Nodes})
		return tasks.Task{ID: id, Payload: payload}
	}
	wp.all = append(wp.all, task(rootQuestion, wide.Position{}, "o"))
	width := len(strconv.Itoa(len(wp.firsts) - 1))
	for i := range wp.firsts {
		f := &wp.firsts[i]
		f.id = fmt.Sprintf("s%0*d", width, i)
		wp.all = append(wp.all, task(f.id, f.pos, "x"))
	}
	return wp
}

// Tasks implements tasks.Plan.
func (wp *widePlan) Tasks() []tasks.Task { return wp.all }

// result returns the decoded result of task id, or nil if it is not merged.
func (wp *widePlan) result(id string) (*solveResult, error) {
	data, ok := wp.Result(id)
	if !ok {
		return nil, nil
	}
	r := new(solveResult)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("result of task %s: %w", id, err)
	}
	return r, nil
}

// Progress implements tasks.Progresses: the first moves decided so far.
func (wp *widePlan) Progress() string {
	won, refuted, undecided := 0, 0, 0
	for _, f := range wp.firsts {
		r, err := wp.result(f.id)
		switch {
		case err != nil || r == nil:
		case r.Undecided:
			undecided++
		case r.Wins:
			won++
		default:
			refuted++
		}
	}
	return firstMovesLine(refuted, len(wp.firsts), won, undecided)
}

// Report implements tasks.Plan: the value, when the questions decide it,
// and every task's answer or how far it got.
func (wp *widePlan) Report(_ context.Context, sum tasks.Summary) (tasks.Report, error) {
	g := wp.g
	rep := &SolveReport{
		Board: fmt.Sprintf("%dx%d", g.Rows, g.Cols), Rows: g.Rows, Cols: g.Cols, K: g.K, Method: MethodPNS,
		Value: "unknown", BestMoves: [][2]int{}, PV: [][2]int{}, SplitDepth: 1, TaskDetails: []SolveTaskDetail{}, Questions: true,
		NodeBound: wp.params.Nodes,
	}
	root, err := wp.result(rootQuestion)
	if err != nil {
		return nil, err
	}
	// rc is a cell as [row, col].
	rc := func(c int) [2]int { return [2]int{c / g.Stride, c % g.Stride} }
	detail := func(id string, pos wide.Position, cells []int, question, side string, r *solveResult) {
		rep.Nodes += r.Nodes
		rep.addTaskTime(sum, id, r.Seconds)
		toMove := "O"
		if pos.XToMove() {
			toMove = "X"
		}
		var firsts [][2]int
		for _, c := range cells {
			firsts = append(firsts, rc(c))
		}
		rep.TaskDetails = append(rep.TaskDetails, SolveTaskDetail{
			Task: id, Position: g.String(pos), ToMove: toMove, Question: question, Value: answerWord(side, r), Nodes: r.Nodes, Seconds: r.Seconds,
			Undecided: r.Undecided, Proof: r.Proof, Disproof: r.Disproof, FirstMoves: firsts,
		})
	}
	var won []int // the first moves that win, as cells
	refuted := 0
	for _, f := range wp.firsts {
		r, err := wp.result(f.id)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		detail(f.id, f.pos, f.cells, "does X win?", "X", r)
		switch {
		case r.Undecided:
		case r.Wins:
			won = append(won, f.cells...)
		default:
			refuted++
		}
	}
	if root != nil {
		detail(rootQuestion, wide.Position{}, nil, "does O win?", "O", root)
	}
	switch {
	case len(won) > 0:
		rep.Value = "win"
		slices.Sort(won) // row-major: a cell is r*Stride+c
		for _, c := range won {
			rep.BestMoves = append(rep.BestMoves, rc(c))
		}
	case refuted < len(wp.firsts) || root == nil || root.Undecided:
		// Some question is open: the value is unknown.
	case root.Wins:
		rep.Value = "loss"
		for r := range g.Rows {
			for c := range g.Cols {
				rep.BestMoves = append(rep.BestMoves, [2]int{r, c})
			}
		}
	default:
		rep.Value = "draw"
		if root.GoalMove > 0 {
			rep.BestMoves = append(rep.BestMoves, rc(root.GoalMove-1))
		}
		rep.BestMovesPartial = true
	}
	return rep, nil
}

// wideTable returns the process's table for a task on a board past 8x8,
// replacing the table of another game or size, and loading the one saved
// at path, if any (table.go).
func (s *solveTables) wideTable(t solveTask, g *wide.Game, path string) *widepns.Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := t.tableKey()
	if s.params != key || s.wide == nil {
		s.params, s.table, s.proof, s.wide = key, nil, nil, nil
		s.wide = widepns.NewTable(g, t.TTMB<<20)
		if loadTableFile(s.wide, path) {
			s.savedAt = time.Now()
		}
	}
	return s.wide
}

// runWide answers a question task on a board past 8x8 as runQuestion
// does on 8x8 (ask), without the line of a win.
func (r *solveRunner) runWide(ctx context.Context, t solveTask) (tasks.Output, error) {
	p := SolveParams{Rows: t.Rows, Cols: t.Cols, K: t.K, SplitDepth: -1, TTMB: t.TTMB, Method: t.Method}
	g, err := p.validateWide()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	if t.Question != "x" && t.Question != "o" || t.CertificatePositions != 0 {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.solve task on %dx%d: question %q, certificate positions %d: want a question, x or o",
			t.Rows, t.Cols, t.Question, t.CertificatePositions))
	}
	pos := wide.Position{X: wide.Set{Lo: t.X, Hi: t.XHi}, O: wide.Set{Lo: t.O, Hi: t.OHi}}
	if err := g.Valid(pos); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.solve task position: %w", err))
	}
	path := wideTablePath(r.dir, g, t.TTMB)
	table := r.tables.wideTable(t, g, path)
	stop := r.tables.saveFileEvery(table, path)
	defer stop()
	if r.wide == nil || r.wide.Table() != table {
		r.wide = table.NewSolver()
		r.wide.SetZones(true) // as newProofSolver
	}
	out, err := ask(ctx, r.wide, pos, t.Question == "x", t.Nodes, nil)
	if err != nil && ctx.Err() != nil {
		// Interrupted: the table goes to disk, for the task's next run.
		r.tables.saveFile(table, path)
	}
	return out, err
}
