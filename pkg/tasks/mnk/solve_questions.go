package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// A pns job split at depth 1 or more without --root-moves asks questions
// rather than values. The value of the root is decided by two questions:
// "does X win?", an OR over X's moves and an AND over O's down the top of
// the tree, answered at the split depth by one task a position; and "does
// O win?", which X refutes at the root with one move, answered by one task
// at the root (rootQuestion). A task that proves a value asks both
// questions of its position, the second as hard as the first where it is a
// draw: a draw's first moves each cost two hard questions where the root
// needs one, and the job far less than the same split into values (7,8,5:
// docs/benchmarks.md, "The split of a proof").
//
// What the questions do not give: the value of each first move (a draw's
// best first moves are the one move that refuted "does O win?"), and a
// principal variation unless X wins (a task that proves a win follows its
// proof; a draw's line would need both questions at every ply).

// rootQuestion is the id of the task that asks "does O win?" at the root.
const rootQuestion = "o"

// runQuestion answers the question xWins (does X win, else O) about pos
// with a pns.Solver on the shared table, with the move that reached the
// goal of the side to move, and the line of the proof when the side asked
// about wins.
func (r *solveRunner) runQuestion(ctx context.Context, table *pns.Table, pos mnk.Position, xWins bool, budget uint64) (tasks.Output, error) {
	if r.proof == nil || r.proof.Table() != table {
		r.proof = newProofSolver(table)
	}
	s := r.proof
	return ask(ctx, s, pos, xWins, budget, func(res *solveResult) (err error) {
		// The side asked about wins: the value for the side to move is
		// known, and the line follows the proof in the table.
		v := mnk.Win
		if xWins != pos.XToMove() {
			v = mnk.Loss
		}
		res.PV, err = s.PV(ctx, pos, v)
		return err
	})
}

// prover is a proof-number solver of positions P: package pns's, or
// package wide/pns's.
type prover[P any] interface {
	Nodes() uint64
	SetNodeLimit(n uint64)
	Prove(ctx context.Context, p P, xWins bool) (bool, error)
	RootNumbers() (proof, disproof uint32)
	GoalMove(p P, xWins bool) int
}

// ask answers the question xWins about pos with s, within budget nodes (0:
// no bound), and returns the task's output: the answer and the move that
// reached the goal of the side to move, completed by line (if not nil)
// when the side asked about wins; or, at the bound, the numbers left at
// the root. The nodes counted include line's.
func ask[P any](ctx context.Context, s prover[P], pos P, xWins bool, budget uint64, line func(*solveResult) error) (tasks.Output, error) {
	start := time.Now()
	nodes := s.Nodes()
	if budget > 0 {
		s.SetNodeLimit(nodes + budget)
		defer s.SetNodeLimit(0)
	}
	wins, err := s.Prove(ctx, pos, xWins)
	var res solveResult
	switch {
	case errors.Is(err, mnk.ErrNodeLimit):
		res.Undecided = true
		res.Proof, res.Disproof = s.RootNumbers()
	case err != nil:
		return tasks.Output{}, err
	default:
		res.Wins, res.GoalMove = wins, s.GoalMove(pos, xWins)+1
		if wins && line != nil {
			if err := line(&res); err != nil {
				return tasks.Output{}, err
			}
		}
	}
	if res.PV == nil {
		res.PV = []int{}
	}
	res.Nodes, res.Seconds = s.Nodes()-nodes, time.Since(start).Seconds()
	data, err := json.Marshal(res)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// Answers to "does X win?" over the top of the tree.
const (
	xOpen      = 0 // not known yet
	xWon       = 1
	xNotWins   = 2
	xUndecided = 3 // a task that reached its node bound: open, and decoded
)

// xAnswers decides "does X win?" over the top of the tree from the tasks
// merged so far: a leaf by its task (or the game's end), an X-to-move node
// when a move wins or every move fails, an O-to-move node when a move
// holds X off or every move loses. It returns the answers by layer. Each
// task's answer is decoded once (sp.leaves): Progress asks again and again
// while the job runs, and a merged result never changes.
func (sp *solvePlan) xAnswers() ([][]uint8, error) {
	if sp.leaves == nil {
		sp.leaves = make([]uint8, len(sp.tasks))
	}
	ans := make([][]uint8, len(sp.layers))
	for d, layer := range sp.layers {
		ans[d] = make([]uint8, len(layer))
		for i, n := range layer {
			switch n.res {
			case mnk.XWin:
				ans[d][i] = xWon
			case mnk.OWin, mnk.Draw:
				ans[d][i] = xNotWins
			}
		}
	}
	for ti, t := range sp.tasks {
		if sp.leaves[ti] == xOpen {
			data, ok := sp.Result(t.ID)
			if !ok {
				continue
			}
			var r struct {
				Wins      bool `json:"wins"`
				Undecided bool `json:"undecided"`
			}
			if err := json.Unmarshal(data, &r); err != nil {
				return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
			}
			sp.leaves[ti] = xNotWins
			switch {
			case r.Undecided:
				sp.leaves[ti] = xUndecided
			case r.Wins:
				sp.leaves[ti] = xWon
			}
		}
		if a := sp.leaves[ti]; a != xUndecided {
			ans[sp.split][sp.where[ti]] = a
		}
	}
	for d := len(sp.layers) - 2; d >= 0; d-- {
		xMoves := d%2 == 0
		for i, n := range sp.layers[d] {
			if n.res != mnk.Ongoing {
				continue
			}
			// X to move: one won child decides, all refuted decide the
			// other way; O to move: the reverse.
			decides, all := uint8(xWon), uint8(xNotWins)
			if !xMoves {
				decides, all = xNotWins, xWon
			}
			a, every := uint8(xOpen), true
			for _, k := range n.kids {
				switch ans[d+1][k] {
				case decides:
					a = decides
				case xOpen:
					every = false
				}
			}
			if a == xOpen && every {
				a = all
			}
			ans[d][i] = a
		}
	}
	return ans, nil
}

// questionReport is the report of a job of questions: the value from the
// two questions, the best first moves they show, and the line of a win.
func (sp *solvePlan) questionReport(sum tasks.Summary) (*SolveReport, error) {
	g := sp.g
	rep := &SolveReport{
		Board: fmt.Sprintf("%dx%d", g.Rows, g.Cols), Rows: g.Rows, Cols: g.Cols, K: g.K, Method: sp.params.Resolve(),
		Value: "unknown", BestMoves: [][2]int{}, PV: [][2]int{},
		SplitDepth: sp.split, TaskDetails: []SolveTaskDetail{}, Questions: true,
	}
	ans, err := sp.xAnswers()
	if err != nil {
		return nil, err
	}
	last := sp.layers[sp.split]
	lines := make([][]int, len(sp.tasks)) // the tasks' lines, of wins
	for ti, t := range sp.tasks {
		data, ok := sp.Result(t.ID)
		if !ok {
			continue
		}
		var r solveResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
		}
		lines[ti] = r.PV
		n := last[sp.where[ti]]
		rep.Nodes += r.Nodes
		rep.addTaskTime(sum, t.ID, r.Seconds)
		rep.TaskDetails = append(rep.TaskDetails, SolveTaskDetail{
			Task: t.ID, Position: g.String(n.pos), ToMove: toMove(n.pos), Question: "does X win?", Value: answerWord("X", &r), Nodes: r.Nodes, Seconds: r.Seconds,
			Undecided: r.Undecided, Proof: r.Proof, Disproof: r.Disproof,
		})
	}
	var root *solveResult
	if data, ok := sp.Result(rootQuestion); ok {
		root = new(solveResult)
		if err := json.Unmarshal(data, root); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", rootQuestion, err)
		}
		rep.Nodes += root.Nodes
		rep.addTaskTime(sum, rootQuestion, root.Seconds)
		rep.TaskDetails = append(rep.TaskDetails, SolveTaskDetail{
			Task: rootQuestion, Position: g.String(mnk.Position{}), ToMove: "X", Question: "does O win?", Value: answerWord("O", root),
			Nodes: root.Nodes, Seconds: root.Seconds, Undecided: root.Undecided, Proof: root.Proof, Disproof: root.Disproof,
		})
		if root.Undecided {
			root = nil // no answer
		}
	}

	// The first moves, each into an orbit of layer 1.
	index := map[mnk.Position]int{}
	for i, n := range sp.layers[1] {
		index[n.pos] = i
	}
	firstMove := func(c int) uint8 {
		q, _ := g.Play(mnk.Position{}, c)
		cq, _ := g.Canonical(q)
		return ans[1][index[cq]]
	}
	switch {
	case ans[0][0] == xWon:
		rep.Value = "win"
		for e := g.Empty(mnk.Position{}); e != 0; e &= e - 1 {
			if c := bits.TrailingZeros64(e); firstMove(c) == xWon {
				rep.BestMoves = append(rep.BestMoves, cellRC(c))
			}
		}
		// X's first winning move (row-major) and O's first move down the
		// top, then the line of the task reached.
		pv, err := sp.topLine(lines, func(d, _, j int) bool { return ans[d+1][j] == xWon })
		if err != nil {
			return nil, fmt.Errorf("line of the win: %w", err)
		}
		rep.PV = pv
	case ans[0][0] == xNotWins && root != nil && root.Wins:
		rep.Value = "loss" // every first move loses
		for e := g.Empty(mnk.Position{}); e != 0; e &= e - 1 {
			rep.BestMoves = append(rep.BestMoves, cellRC(bits.TrailingZeros64(e)))
		}
	case ans[0][0] == xNotWins && root != nil:
		rep.Value = "draw"
		if root.GoalMove > 0 {
			// X's move that refuted "does O win?"; X wins after none.
			rep.BestMoves = append(rep.BestMoves, cellRC(root.GoalMove-1))
		}
		rep.BestMovesPartial = true
	}
	return rep, nil
}

// answerWord says what a question task about side found.
func answerWord(side string, r *solveResult) string {
	switch {
	case r.Undecided:
		return fmt.Sprintf("undecided after %s nodes (proof %s, disproof %s)", tasks.Thousands(r.Nodes), proofNumber(r.Proof), proofNumber(r.Disproof))
	case r.Wins:
		return side + " wins"
	}
	return side + " does not win"
}

// proofNumber writes a proof or disproof number, "inf" for infinity.
func proofNumber(n uint32) string {
	if n >= 1<<31 {
		return "inf"
	}
	return tasks.Thousands(uint64(n))
}

// firstMovesProgress says how far "does X win?" is decided over the first
// moves (up to symmetry), from the tasks merged so far: the progress of a
// job of questions.
func (sp *solvePlan) firstMovesProgress() (string, error) {
	ans, err := sp.xAnswers()
	if err != nil {
		return "", err
	}
	won, refuted := 0, 0
	for i := range sp.layers[1] {
		switch ans[1][i] {
		case xWon:
			won++
		case xNotWins:
			refuted++
		}
	}
	undecided := 0
	for _, a := range sp.leaves {
		if a == xUndecided {
			undecided++
		}
	}
	return firstMovesLine(refuted, len(sp.layers[1]), won, undecided), nil
}

// firstMovesLine is the progress of a job of questions: the first moves
// (up to symmetry) refuted and won, and the tasks left undecided at their
// node bound (said only when there are any).
func firstMovesLine(refuted, of, won, undecided int) string {
	s := fmt.Sprintf("first moves (up to symmetry): %d of %d refuted, %d won", refuted, of, won)
	if undecided > 0 {
		s += ", " + tasks.Count(undecided, "task") + " undecided at the node bound"
	}
	return s
}

// Progress implements tasks.Progresses: how many first moves (up to
// symmetry) are decided, from the tasks merged so far; "" for a job of one
// task at the root.
func (sp *solvePlan) Progress() string {
	s := sp.solveProgress()
	if len(sp.certParts) == 0 {
		return s
	}
	built := 0
	for _, cp := range sp.certParts {
		if _, ok := sp.Result(cp.id); ok {
			built++
		}
	}
	if s != "" {
		s += "; "
	}
	return s + fmt.Sprintf("certificate: %d of %d parts built", built, len(sp.certParts))
}

// solveProgress is Progress of the solve tasks.
func (sp *solvePlan) solveProgress() string {
	if sp.split == 0 {
		return ""
	}
	if sp.questions {
		s, err := sp.firstMovesProgress()
		if err != nil {
			return "" // the report names the result that cannot be read
		}
		return s
	}
	// Values: a position is proven when its task is merged, or when every
	// child is.
	known := make([]bool, len(sp.layers[sp.split]))
	for i, n := range sp.layers[sp.split] {
		known[i] = n.res != mnk.Ongoing
	}
	for ti, t := range sp.tasks {
		if _, ok := sp.Result(t.ID); ok {
			known[sp.where[ti]] = true
		}
	}
	for d := sp.split - 1; d >= 1; d-- {
		up := make([]bool, len(sp.layers[d]))
		for i, n := range sp.layers[d] {
			up[i] = true
			if n.res == mnk.Ongoing {
				for _, k := range n.kids {
					up[i] = up[i] && known[k]
				}
			}
		}
		known = up
	}
	proven := 0
	for _, k := range known {
		if k {
			proven++
		}
	}
	return fmt.Sprintf("first moves (up to symmetry): %d of %d proven", proven, len(known))
}
