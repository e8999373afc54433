// Package nineboard holds the job kinds of nine-board tic-tac-toe.
//
// "nineboard.match" plays games between two players of pkg/player (a random
// player, or the engine at a fixed depth or with a time per move). The games are split
// into tasks of consecutive game indices; game i draws its random numbers
// from a stream seeded by (seed, i) and the engine's tables are cleared
// before each game, so the games, and the report, depend on the seed and
// not on the split or on the number of workers. Players with a time limit
// are the exception: how deep they search depends on the machine.
package nineboard

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/player"
	"github.com/woprlabs/wopr/pkg/tasks"
)

func init() { tasks.Register(Match{}) }

// Limits on match parameters.
const (
	MaxGames = 1_000_000
	// gamesPerTask aims at about this many tasks; a task has at least one
	// game and at most maxGamesPerTask.
	autoTasks       = 32
	maxGamesPerTask = 1000
)

// MatchParams are the parameters of a "nineboard.match" job.
type MatchParams struct {
	X       string `json:"x"`
	O       string `json:"o"`
	Games   int    `json:"games"`
	Seed    uint64 `json:"seed"`
	Variant string `json:"variant"`
	// GamesPerTask splits the games; 0 chooses about 32 tasks.
	GamesPerTask int `json:"games_per_task,omitempty"`
}

// Spec checks the parameters of a new job, as analyze nineboard match
// submits it, and returns the job's spec.
func (p MatchParams) Spec() (tasks.Spec, error) {
	if _, _, _, err := p.Validate(); err != nil {
		return tasks.Spec{}, err
	}
	params, err := json.Marshal(p)
	if err != nil {
		return tasks.Spec{}, fmt.Errorf("encode the parameters of %s: %w", Match{}.Name(), err)
	}
	sp := tasks.Spec{Kind: Match{}.Name(), Params: params}
	if err := tasks.CheckSpec(sp); err != nil {
		return tasks.Spec{}, err
	}
	return sp, nil
}

// Validate checks the parameters.
func (p MatchParams) Validate() (x, o player.Spec, v nineboard.Variant, err error) {
	if x, err = player.ParseNineboard(p.X); err != nil {
		return x, o, v, tasks.Invalid("--x: %v", err)
	}
	if o, err = player.ParseNineboard(p.O); err != nil {
		return x, o, v, tasks.Invalid("--o: %v", err)
	}
	if v, err = nineboard.ParseVariant(p.Variant); err != nil {
		return x, o, v, tasks.Invalid("%v", err)
	}
	if p.Games < 1 || p.Games > MaxGames {
		return x, o, v, tasks.Invalid("games %d: want 1 to %d", p.Games, MaxGames)
	}
	if p.GamesPerTask < 0 || p.GamesPerTask > maxGamesPerTask {
		return x, o, v, tasks.Invalid("games per task %d: want 0 (automatic) to %d", p.GamesPerTask, maxGamesPerTask)
	}
	return x, o, v, nil
}

// Match is the "nineboard.match" kind.
type Match struct{}

// Name implements tasks.Kind.
func (Match) Name() string { return "nineboard.match" }

// Version implements tasks.Kind.
func (Match) Version() int { return 1 }

// matchTask is the payload of a task: games First to First+Count-1.
type matchTask struct {
	MatchParams
	First int `json:"first"`
	Count int `json:"count"`
}

// sideStats are one side's figures over some games.
type sideStats struct {
	Moves    int    `json:"moves"` // moves chosen by the player
	Nodes    uint64 `json:"nodes"`
	DepthSum int    `json:"depth_sum"`
	Micros   int64  `json:"micros"` // thinking time
}

// matchResult is a task's result.
type matchResult struct {
	XWins int          `json:"x_wins"`
	OWins int          `json:"o_wins"`
	Draws int          `json:"draws"`
	Plies int          `json:"plies"`
	Sides [2]sideStats `json:"sides"`
	// Games are the move lists, one string per game, for the digest.
	Games []string `json:"games"`
}

// perTask is the number of games of a task: GamesPerTask, or chosen for
// about autoTasks tasks.
func (p MatchParams) perTask() int {
	if p.GamesPerTask > 0 {
		return p.GamesPerTask
	}
	return min(max((p.Games+autoTasks-1)/autoTasks, 1), maxGamesPerTask)
}

// Size implements tasks.Sizer: the games cut in tasks of GamesPerTask.
func (Match) Size(raw json.RawMessage) (tasks.Size, error) {
	var p MatchParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return tasks.Size{}, tasks.Invalid("nineboard.match parameters: %v", err)
	}
	if _, _, _, err := p.Validate(); err != nil {
		return tasks.Size{}, err
	}
	by := fmt.Sprintf("--games %d", p.Games)
	if p.GamesPerTask > 0 {
		by += fmt.Sprintf(" --games-per-task %d", p.GamesPerTask)
	}
	return tasks.Size{Tasks: (p.Games + p.perTask() - 1) / p.perTask(), By: by}, nil
}

// Plan implements tasks.Kind. A player with a time per move plays as deep
// as the machine allows, so the tasks of such a match are volatile: their
// games are not cached.
func (Match) Plan(ctx context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p MatchParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("nineboard.match parameters: %v", err)
	}
	x, o, _, err := p.Validate()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the job is cancelled
	}
	per := p.perTask()
	return &matchPlan{Results: make(tasks.Results), params: p, per: per, n: (p.Games + per - 1) / per,
		width: len(strconv.Itoa(p.Games - 1)), volatile: x.Time > 0 || o.Time > 0}, nil
}

// matchPlan makes its tasks when asked (tasks.Indexed): a task is a range
// of games, so a match of a million tasks holds none of them.
type matchPlan struct {
	tasks.Results
	params   MatchParams
	per      int // games of a task (the last may have fewer)
	n        int // tasks
	width    int // of an id: "g" and the first game, 0-padded
	volatile bool
}

// Len implements tasks.Indexed.
func (mp *matchPlan) Len() int { return mp.n }

// Task implements tasks.Indexed.
func (mp *matchPlan) Task(i int) tasks.Task {
	payload, _ := json.Marshal(matchTask{MatchParams: mp.params, First: i * mp.per, Count: mp.count(i)})
	return tasks.Task{ID: mp.id(i), Payload: payload, Volatile: mp.volatile}
}

// id is the id of task i.
func (mp *matchPlan) id(i int) string { return fmt.Sprintf("g%0*d", mp.width, i*mp.per) }

// count is the number of games of task i.
func (mp *matchPlan) count(i int) int { return min(mp.per, mp.params.Games-i*mp.per) }

// Index implements tasks.Indexed.
func (mp *matchPlan) Index(id string) (int, bool) {
	first, err := strconv.Atoi(strings.TrimPrefix(id, "g"))
	if err != nil || first < 0 || first%mp.per != 0 || first/mp.per >= mp.n || mp.id(first/mp.per) != id {
		return 0, false
	}
	return first / mp.per, true
}

// Tasks implements tasks.Plan.
func (mp *matchPlan) Tasks() []tasks.Task { return tasks.ListOf(mp) }

// SideReport is one player's figures in a match report.
type SideReport struct {
	Player string `json:"player"`
	Wins   int    `json:"wins"`
	Draws  int    `json:"draws"`
	Losses int    `json:"losses"`
	// Moves counts the moves the player chose (not the referee's first
	// move of X in first-triple).
	Moves         int     `json:"moves"`
	Nodes         uint64  `json:"nodes"`
	NodesPerMove  float64 `json:"nodes_per_move"`
	AverageDepth  float64 `json:"average_depth"`
	MillisPerMove float64 `json:"millis_per_move"`
}

// MatchReport is the report of a "nineboard.match" job.
type MatchReport struct {
	Variant string `json:"variant"`
	Seed    uint64 `json:"seed"`
	Games   int    `json:"games"`
	// Played counts the games of the tasks that finished.
	Played        int        `json:"played"`
	XWins         int        `json:"x_wins"`
	OWins         int        `json:"o_wins"`
	Draws         int        `json:"draws"`
	AverageLength float64    `json:"average_length"`
	X             SideReport `json:"x"`
	O             SideReport `json:"o"`
	// Digest is an FNV-64a hash of every game's moves in game order: equal
	// digests mean the same games.
	Digest string `json:"digest"`
}

// Report implements tasks.Plan.
func (mp *matchPlan) Report(context.Context, tasks.Summary) (tasks.Report, error) {
	p := mp.params
	rep := &MatchReport{
		Variant: p.Variant, Seed: p.Seed, Games: p.Games,
		X: SideReport{Player: p.X}, O: SideReport{Player: p.O},
	}
	var sides [2]sideStats
	plies := 0
	h := fnv.New64a()
	for i := range mp.n {
		id := mp.id(i)
		data, ok := mp.Result(id)
		if !ok {
			continue // failed: its games are not played
		}
		var r matchResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", id, err)
		}
		if len(r.Games) != mp.count(i) {
			return nil, fmt.Errorf("result of task %s: %d games, want %d", id, len(r.Games), mp.count(i))
		}
		for _, g := range r.Games {
			h.Write([]byte(g))
			h.Write([]byte{'\n'})
		}
		rep.Played += len(r.Games)
		rep.XWins += r.XWins
		rep.OWins += r.OWins
		rep.Draws += r.Draws
		plies += r.Plies
		for s := range 2 {
			sides[s].Moves += r.Sides[s].Moves
			sides[s].Nodes += r.Sides[s].Nodes
			sides[s].DepthSum += r.Sides[s].DepthSum
			sides[s].Micros += r.Sides[s].Micros
		}
	}
	rep.Digest = fmt.Sprintf("%016x", h.Sum64())
	if rep.Played > 0 {
		rep.AverageLength = float64(plies) / float64(rep.Played)
	}
	rep.X.Wins, rep.X.Draws, rep.X.Losses = rep.XWins, rep.Draws, rep.OWins
	rep.O.Wins, rep.O.Draws, rep.O.Losses = rep.OWins, rep.Draws, rep.XWins
	for s, sr := range []*SideReport{&rep.X, &rep.O} {
		st := sides[s]
		sr.Moves, sr.Nodes = st.Moves, st.Nodes
		if st.Moves > 0 {
			sr.NodesPerMove = float64(st.Nodes) / float64(st.Moves)
			sr.AverageDepth = float64(st.DepthSum) / float64(st.Moves)
			sr.MillisPerMove = float64(st.Micros) / 1000 / float64(st.Moves)
		}
	}
	return rep, nil
}

// Text implements tasks.Report.
func (r *MatchReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nine-board tic-tac-toe (%s): %s (x) against %s (o), %d games, seed %d\n", r.Variant, r.X.Player, r.O.Player, r.Games, r.Seed)
	if r.Played < r.Games {
		fmt.Fprintf(&b, "%d of %d games played (the others' tasks failed)\n", r.Played, r.Games)
	}
	pct := func(n int) float64 {
		if r.Played == 0 {
			return 0
		}
		return 100 * float64(n) / float64(r.Played)
	}
	fmt.Fprintf(&b, "  %-8s %-20s %7s %7s %7s %8s %14s %7s %9s\n", "side", "player", "wins", "draws", "losses", "moves", "nodes/move", "depth", "ms/move")
	for _, s := range []struct {
		name string
		r    SideReport
	}{{"x", r.X}, {"o", r.O}} {
		fmt.Fprintf(&b, "  %-8s %-20s %7d %7d %7d %8d %14.0f %7.1f %9.2f\n", s.name, s.r.Player, s.r.Wins, s.r.Draws, s.r.Losses, s.r.Moves, s.r.NodesPerMove, s.r.AverageDepth, s.r.MillisPerMove)
	}
	tasks.Row(&b, "results", "x %.1f%%, draws %.1f%%, o %.1f%%", pct(r.XWins), pct(r.Draws), pct(r.OWins))
	tasks.Row(&b, "average game length", "%.2f plies", r.AverageLength)
	tasks.Row(&b, "games digest", "%s", r.Digest)
	return b.String()
}
