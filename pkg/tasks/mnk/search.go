package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// "mnk.search" is a depth-limited search from any position: one task, as
// the iterations of one search depend on each other. Boards of more than
// mnk.MaxSide on a side (gomoku's 15x15) are searched by search.BigSearcher.

func init() { tasks.Register(Search{}) }

// searchTTBytes is the size of a search's transposition table: at depth 5
// on 8,8,5 it cut the nodes ninefold.
const searchTTBytes = 32 << 20

// MaxSearchSeconds bounds the time budget of a search.
const MaxSearchSeconds = 3600

// SearchParams are the parameters of an "mnk.search" job.
type SearchParams struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	K    int `json:"k"`
	// Moves ("1,1 0,0 2,2": row,col pairs from 0, from the empty board) or
	// Position (rows of X, O and '.', top first, separated by '/') give the
	// position to search; neither means the empty board. A board in Moves
	// is read as a Position.
	Moves    string `json:"moves,omitempty"`
	Position string `json:"position,omitempty"`
	// Depth is the depth in plies (0: no limit but the time budget);
	// TimeSeconds the budget of iterative deepening (0: none).
	Depth       int     `json:"depth"`
	TimeSeconds float64 `json:"time_seconds,omitempty"`
}

// game reads positions of a board: mnk.Game (P = mnk.Position) or
// search.BigGame (P = search.BigPosition).
type game[P any] interface {
	Parse(string) (P, error)
	ParseMoves(string) (P, error)
	Status(P) mnk.Result
}

// startPosition reads the position of a job: moves from the empty board or
// a board; an error names the parameter and says what is wrong.
func startPosition[P any](g game[P], moves, board string) (P, error) {
	var none P
	if board == "" && strings.Contains(moves, "/") {
		moves, board = "", moves // a board given where moves were expected
	}
	switch {
	case moves != "" && board != "":
		return none, tasks.Invalid("give the moves or the position, not both")
	case board != "":
		p, err := g.Parse(board)
		if err != nil {
			return none, tasks.Invalid("position: %v", trimSentinel(err))
		}
		if r := g.Status(p); r != mnk.Ongoing {
			return none, tasks.Invalid("position %s: the game is over (%s)", board, r)
		}
		return p, nil
	}
	p, err := g.ParseMoves(moves)
	if err != nil {
		return none, tasks.Invalid("moves %q: %v", moves, trimSentinel(err))
	}
	if r := g.Status(p); r != mnk.Ongoing {
		return none, tasks.Invalid("moves %q: the game is over (%s): nothing to search", moves, r)
	}
	return p, nil
}

// trimSentinel drops the ": syntax error" or ": invalid position" that the
// engine's errors end with, which say nothing more to a user.
func trimSentinel(err error) string {
	msg := err.Error()
	for _, s := range []error{mnk.ErrSyntax, mnk.ErrInvalidPosition} {
		if errors.Is(err, s) {
			msg = strings.TrimSuffix(msg, ": "+s.Error())
		}
	}
	return msg
}

// Big reports whether the board is searched by search.BigSearcher: more than
// mnk.MaxSide on a side.
func (p SearchParams) Big() bool { return p.Rows > mnk.MaxSide || p.Cols > mnk.MaxSide }

// Spec checks the parameters of a new job, as analyze mnk search submits
// it, and returns the job's spec.
func (p SearchParams) Spec() (tasks.Spec, error) {
	if err := p.check(); err != nil {
		return tasks.Spec{}, err
	}
	return spec(Search{}.Name(), p)
}

// check checks the parameters, for a board of any size.
func (p SearchParams) check() error {
	if p.Big() {
		_, _, err := p.validateBig()
		return err
	}
	_, _, err := p.Validate()
	return err
}

// Validate checks the parameters of a search on a board of at most
// mnk.MaxSide on a side and returns the game and the position.
func (p SearchParams) Validate() (*mnk.Game, mnk.Position, error) {
	g, err := NewGame(p.Rows, p.Cols, p.K)
	if err != nil {
		return nil, mnk.Position{}, err
	}
	pos, err := startPosition[mnk.Position](g, p.Moves, p.Position)
	if err != nil {
		return nil, pos, err
	}
	return g, pos, p.checkLimits(g.Cells())
}

// validateBig is Validate for a bigger board.
func (p SearchParams) validateBig() (*search.BigGame, search.BigPosition, error) {
	g, err := newBigGame(p.Rows, p.Cols, p.K)
	if err != nil {
		return nil, nil, err
	}
	pos, err := startPosition[search.BigPosition](g, p.Moves, p.Position)
	if err != nil {
		return nil, pos, err
	}
	return g, pos, p.checkLimits(g.Cells())
}

func (p SearchParams) checkLimits(cells int) error {
	if p.Depth < 0 || p.Depth > cells {
		return tasks.Invalid("depth %d: want 0 to %d plies", p.Depth, cells)
	}
	if p.TimeSeconds < 0 || p.TimeSeconds > MaxSearchSeconds {
		return tasks.Invalid("time %gs: want 0 to %d seconds", p.TimeSeconds, MaxSearchSeconds)
	}
	if p.Depth == 0 && p.TimeSeconds == 0 {
		return tasks.Invalid("want a depth or a time budget (or both)")
	}
	return nil
}

// Search is the "mnk.search" kind.
type Search struct{}

// Name implements tasks.Kind.
func (Search) Name() string { return "mnk.search" }

// Version implements tasks.Kind. 2: "draw" when searched to the end,
// "1 ply". 3: boards over 8 on a side, where a result past 3 plies is
// "among moves near stones".
func (Search) Version() int { return 3 }

// Plan implements tasks.Kind. A search under a time budget goes as deep as
// the machine allows, so its task is volatile: its result is not cached.
func (Search) Plan(_ context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	check := func(p SearchParams) (*mnk.Game, mnk.Position, error) { return nil, mnk.Position{}, p.check() }
	timed := func(p SearchParams) bool { return p.TimeSeconds > 0 }
	return planOne(raw, "mnk.search", "search", check, timed, func() tasks.Report { return &SearchReport{} })
}

// SearchReport is the report of an "mnk.search" job. Scores are for the
// side to move in the searched position; cells are [row, col].
type SearchReport struct {
	positionHead
	BestMove [2]int `json:"best_move"`
	Score    int    `json:"score"`
	// Result is "win in 5 plies", "loss in 4 plies", "draw" (searched to
	// the end of every line) or "heuristic".
	Result string   `json:"result"`
	PV     [][2]int `json:"pv"`
	// Depth is the depth of the last complete iteration.
	Depth          int               `json:"depth"`
	Nodes          uint64            `json:"nodes"`
	NodesPerSecond float64           `json:"nodes_per_second"`
	SearchSeconds  float64           `json:"search_seconds"`
	Iterations     []SearchIteration `json:"iterations"`
}

// SearchIteration is one iteration of iterative deepening.
type SearchIteration struct {
	Depth    int      `json:"depth"`
	Score    int      `json:"score"`
	BestMove [2]int   `json:"best_move"`
	PV       [][2]int `json:"pv"`
	Nodes    uint64   `json:"nodes"`
	Seconds  float64  `json:"seconds"`
	// EBF is the effective branching factor, this iteration's nodes over
	// the previous one's.
	EBF float64 `json:"ebf"`
}

// Text implements tasks.Report.
func (r *SearchReport) Text() string {
	var b strings.Builder
	if r.Board == "" {
		return failedText("search")
	}
	fmt.Fprintf(&b, "m,n,k-game %d,%d,%d: search of %s, %s to move\n", r.Rows, r.Cols, r.K, r.Position, r.ToMove)
	row := func(label, format string, args ...any) { tasks.Row(&b, label, format, args...) }
	row("best move", "%d,%d", r.BestMove[0], r.BestMove[1])
	row("score", "%d (%s)", r.Score, r.Result)
	row("principal variation", "%s", cellList(r.PV))
	row("depth", "%s", plies(r.Depth))
	row("nodes", "%s (%s/s)", tasks.Thousands(r.Nodes), tasks.Thousands(uint64(r.NodesPerSecond)))
	fmt.Fprintf(&b, "  %-5s %-12s %-7s %14s %8s %9s\n", "depth", "score", "move", "nodes", "EBF", "seconds")
	for _, it := range r.Iterations {
		fmt.Fprintf(&b, "  %-5d %-12d %-7s %14s %8.2f %9.3f\n", it.Depth, it.Score, fmt.Sprintf("%d,%d", it.BestMove[0], it.BestMove[1]), tasks.Thousands(it.Nodes), it.EBF, it.Seconds)
	}
	row("search time", "%.3f s", r.SearchSeconds)
	return b.String()
}

// NewRunner implements tasks.Kind.
func (Search) NewRunner(tasks.Env) tasks.Runner { return searchRunner{} }

type searchRunner struct{}

func (searchRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var p SearchParams
	if err := json.Unmarshal(payload, &p); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.search task: %w", err))
	}
	budget := time.Duration(p.TimeSeconds * float64(time.Second))
	var (
		res  search.Result
		head positionHead
		rc   = cellRC
		near bool
	)
	if p.Big() {
		g, pos, err := p.validateBig()
		if err != nil {
			return tasks.Output{}, tasks.Permanent(err)
		}
		s := search.NewBigSearcher(g, searchTTBytes)
		if res, err = s.Search(ctx, pos, p.Depth, budget); err != nil {
			return tasks.Output{}, err
		}
		near = s.Near
		head = newHead(g.Rows, g.Cols, g.K, g.String(pos), pos.XToMove())
		rc = func(c int) [2]int { return [2]int{c / g.Cols, c % g.Cols} }
	} else {
		g, pos, err := p.Validate()
		if err != nil {
			return tasks.Output{}, tasks.Permanent(err)
		}
		if res, err = search.New(g, searchTTBytes).Search(ctx, pos, p.Depth, budget); err != nil {
			return tasks.Output{}, err
		}
		head = headOf(g, pos)
	}
	rep := SearchReport{
		positionHead: head, BestMove: rc(res.Move), Score: res.Score, PV: cells(res.PV, rc),
		Depth: res.Depth, Nodes: res.Nodes, SearchSeconds: res.Elapsed.Seconds(), Result: mateWords(res.MatePlies(), res.Exhaustive, near),
	}
	if s := res.Elapsed.Seconds(); s > 0 {
		rep.NodesPerSecond = float64(res.Nodes) / s
	}
	for _, it := range res.Iterations {
		rep.Iterations = append(rep.Iterations, SearchIteration{
			Depth: it.Depth, Score: it.Score, BestMove: rc(it.Move), PV: cells(it.PV, rc), Nodes: it.Nodes, Seconds: it.Seconds, EBF: it.EBF,
		})
	}
	data, err := json.Marshal(rep)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// mateWords describes a forced result in plies, a proven draw, or a
// heuristic score. With near (a big board, searched near stones only) a
// result of more than 3 plies is forced only among those moves: a reply
// further away (blocking a line three or four cells out) was not tried.
// Within 3 plies it is exact: a line completed, two threats, or a block
// that cannot stop a double threat, all of them cells next to stones.
func mateWords(n int, exhaustive, near bool) string {
	var w string
	switch {
	case n > 0:
		w = "win in " + plies(n)
	case n < 0:
		w = "loss in " + plies(-n)
	case exhaustive:
		return "draw"
	default:
		return "heuristic"
	}
	if near && (n > 3 || n < -3) {
		w += " among moves near stones"
	}
	return w
}

// plies writes a number of plies: "1 ply", "5 plies".
func plies(n int) string {
	if n == 1 {
		return "1 ply"
	}
	return fmt.Sprintf("%d plies", n)
}

// cells converts cells to [row, col] pairs with rc (cellRC for a Game).
func cells(cs []int, rc func(int) [2]int) [][2]int {
	out := make([][2]int, len(cs))
	for i, c := range cs {
		out[i] = rc(c)
	}
	return out
}
