package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/player"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// "mnk.simulate" plays many games between two players and counts how they
// end. Game i draws its random numbers from its own generator, seeded by
// (seed, i), and the other players are positional or run on the clock, so
// a simulation is the same games whatever the split and the workers. With
// Exact, one more task computes the exact odds of the match by
// enumerating every choice of its random players (player.Exact), which
// the report sets beside the counts.

func init() { tasks.Register(Simulate{}) }

// Limits of a simulation.
const (
	MaxSimulateGames    = 100_000_000
	maxSimulatePerTask  = 100_000
	autoSimulateTasks   = 64
	minAutoSimulateGame = 100 // games per task at least, when chosen automatically
	// MaxExactCells bounds the boards of exact odds: the enumeration visits
	// every position the random players can reach.
	MaxExactCells = player.MaxExactCells
)

// SimulateParams are the parameters of an "mnk.simulate" job.
type SimulateParams struct {
	Rows  int    `json:"rows"`
	Cols  int    `json:"cols"`
	K     int    `json:"k"`
	X     string `json:"x"`
	O     string `json:"o"`
	Games int    `json:"games"`
	Seed  uint64 `json:"seed"`
	// GamesPerTask is the number of games of a task (0: about 64 tasks).
	GamesPerTask int  `json:"games_per_task,omitempty"`
	Exact        bool `json:"exact,omitempty"`
}

// DefaultSimulateParams are what a simulation takes for the parameters it
// is not given: the default board (DefaultRows x DefaultCols, its
// DefaultK), random against random, 1,000 games, seed 1, the games split
// automatically.
func DefaultSimulateParams() SimulateParams {
	return SimulateParams{Rows: DefaultRows, Cols: DefaultCols, K: DefaultK(DefaultRows, DefaultCols), X: "random", O: "random", Games: 1000, Seed: 1}
}

// Spec checks the parameters of a new job, as analyze mnk simulate and
// the web's jobs API submit it, and returns the job's spec.
func (p SimulateParams) Spec() (tasks.Spec, error) {
	if _, _, err := p.Validate(); err != nil {
		return tasks.Spec{}, err
	}
	return spec(Simulate{}.Name(), p)
}

// Validate checks the parameters and returns the game and the players.
func (p SimulateParams) Validate() (*mnk.Game, [2]player.Spec, error) {
	var specs [2]player.Spec
	g, err := NewGame(p.Rows, p.Cols, p.K)
	if err != nil {
		return nil, specs, err
	}
	for i, s := range []string{p.X, p.O} {
		flag := []string{"-x", "-o"}[i]
		spec, err := player.Parse(s)
		if err != nil {
			return nil, specs, tasks.Invalid("%s: %v", flag, err)
		}
		switch {
		case spec.Kind == player.Human:
			return nil, specs, tasks.Invalid("%s: a simulation has no human player: want random, perfect or engine", flag)
		case spec.Kind == player.Perfect && g.Cells() > player.MaxPerfectCells:
			return nil, specs, tasks.Invalid("%s: perfect plays boards of up to %d cells; %dx%d has %d", flag, player.MaxPerfectCells, p.Rows, p.Cols, g.Cells())
		}
		specs[i] = spec
	}
	if p.Games < 1 || p.Games > MaxSimulateGames {
		return nil, specs, tasks.Invalid("--games %d: want 1 to %d", p.Games, MaxSimulateGames)
	}
	if p.GamesPerTask < 0 || p.GamesPerTask > maxSimulatePerTask {
		return nil, specs, tasks.Invalid("--games-per-task %d: want 0 (automatic) to %d", p.GamesPerTask, maxSimulatePerTask)
	}
	if p.Exact {
		if g.Cells() > MaxExactCells {
			return nil, specs, tasks.Invalid("--exact: boards of up to %d cells; %dx%d has %d", MaxExactCells, p.Rows, p.Cols, g.Cells())
		}
		for i, s := range specs {
			if s.Kind != player.Random && !s.Positional() {
				return nil, specs, tasks.Invalid("--exact: %s %s moves by the clock, not by the position: want random, perfect or engine:depth=D",
					[]string{"-x", "-o"}[i], s)
			}
		}
	}
	return g, specs, nil
}

// perTask is the number of games of a task: GamesPerTask, or chosen for
// about autoSimulateTasks tasks.
func (p SimulateParams) perTask() int {
	if p.GamesPerTask > 0 {
		return p.GamesPerTask
	}
	return min(max((p.Games+autoSimulateTasks-1)/autoSimulateTasks, minAutoSimulateGame), maxSimulatePerTask)
}

// Simulate is the "mnk.simulate" kind.
type Simulate struct{}

// Name implements tasks.Kind.
func (Simulate) Name() string { return "mnk.simulate" }

// Version implements tasks.Kind.
func (Simulate) Version() int { return 1 }

// simulateTask is the payload of a task: games First to First+Count-1, or
// with Odds, the exact odds.
type simulateTask struct {
	SimulateParams
	First int  `json:"first"`
	Count int  `json:"count"`
	Odds  bool `json:"odds,omitempty"`
}

// Plan implements tasks.Kind. A player on the clock moves as the machine
// allows, so the tasks of such a simulation are volatile.
func (Simulate) Plan(ctx context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p SimulateParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("mnk.simulate parameters: %v", err)
	}
	_, specs, err := p.Validate()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the job is cancelled
	}
	volatile := !specs[0].Positional() && specs[0].Kind != player.Random || !specs[1].Positional() && specs[1].Kind != player.Random
	per := p.perTask()
	sp := &simulatePlan{params: p, per: per, games: (p.Games + per - 1) / per, width: len(strconv.Itoa(p.Games - 1)), volatile: volatile,
		first: map[string][3]int{}}
	return sp, nil
}

// simulatePlan makes its tasks when asked (tasks.Indexed): a game task is
// a range of games, so a simulation of a million tasks holds none of
// them. It adds each result to the totals as it is merged.
type simulatePlan struct {
	params   SimulateParams
	per      int // games of a game task (the last may have fewer)
	games    int // game tasks; the exact odds' task, if any, follows
	width    int // of a game task's id: "g" and the first game, 0-padded
	volatile bool

	// The totals of the results merged.
	played, plies int
	wins          [3]int
	digest        uint64
	first         map[string][3]int
	sides         [2]sideCount
	odds          *oddsResult
}

// Len implements tasks.Indexed.
func (sp *simulatePlan) Len() int {
	if sp.params.Exact {
		return sp.games + 1
	}
	return sp.games
}

// Task implements tasks.Indexed.
func (sp *simulatePlan) Task(i int) tasks.Task {
	p := sp.params
	if i == sp.games {
		payload, _ := json.Marshal(simulateTask{SimulateParams: p, Odds: true})
		return tasks.Task{ID: exactTask, Payload: payload}
	}
	first := i * sp.per
	payload, _ := json.Marshal(simulateTask{SimulateParams: p, First: first, Count: sp.count(i)})
	return tasks.Task{ID: sp.id(i), Payload: payload, Volatile: sp.volatile}
}

// id is the id of game task i.
func (sp *simulatePlan) id(i int) string { return fmt.Sprintf("g%0*d", sp.width, i*sp.per) }

// count is the number of games of game task i.
func (sp *simulatePlan) count(i int) int { return min(sp.per, sp.params.Games-i*sp.per) }

// Index implements tasks.Indexed.
func (sp *simulatePlan) Index(id string) (int, bool) {
	if id == exactTask {
		return sp.games, sp.params.Exact
	}
	first, err := strconv.Atoi(strings.TrimPrefix(id, "g"))
	if err != nil || first < 0 || first%sp.per != 0 || first/sp.per >= sp.games || sp.id(first/sp.per) != id {
		return 0, false
	}
	return first / sp.per, true
}

// Tasks implements tasks.Plan.
func (sp *simulatePlan) Tasks() []tasks.Task { return tasks.ListOf(sp) }

// exactTask is the id of the exact odds' task.
const exactTask = "exact"

// simulateResult is a game task's result.
type simulateResult struct {
	Games  int               `json:"games"`
	Wins   [3]int            `json:"wins"` // x wins, o wins, draws
	Plies  int               `json:"plies"`
	First  map[string][3]int `json:"first"` // first move "r,c" -> results as in Wins
	Sides  [2]sideCount      `json:"sides"`
	Digest uint64            `json:"digest"` // the sum of the games' hashes
}

type sideCount struct {
	Moves int    `json:"moves"`
	Nodes uint64 `json:"nodes"`
}

// oddsResult is the exact task's result: the probabilities of X win, O
// win and draw, as fractions and as numbers.
type oddsResult struct {
	Fractions [3]string  `json:"fractions"`
	Numbers   [3]float64 `json:"numbers"`
}

// SimulateReport is the report of an "mnk.simulate" job.
type SimulateReport struct {
	Board         string  `json:"board"`
	Rows          int     `json:"rows"`
	Cols          int     `json:"cols"`
	K             int     `json:"k"`
	Seed          uint64  `json:"seed"`
	Games         int     `json:"games"`
	Played        int     `json:"played"` // games of the tasks that finished
	XWins         int     `json:"x_wins"`
	OWins         int     `json:"o_wins"`
	Draws         int     `json:"draws"`
	AverageLength float64 `json:"average_length"`
	// FirstMoves are the first moves played, most played first, with how
	// their games ended.
	FirstMoves []FirstMove `json:"first_moves"`
	X          SideFigures `json:"x"`
	O          SideFigures `json:"o"`
	Digest     string      `json:"digest"` // equal digests: the same games
	Exact      *Odds       `json:"exact,omitempty"`
	// ExactFractions are Exact's probabilities as fractions, "3/7".
	ExactFractions *OddsText `json:"exact_fractions,omitempty"`
	// Deviation is how far each simulated count lies from what the exact
	// odds make it on average, in standard errors of that count.
	Deviation *Odds `json:"deviation,omitempty"`
}

// FirstMove is a first move and how the games that opened with it ended.
type FirstMove struct {
	Move  [2]int `json:"move"`
	Games int    `json:"games"`
	XWins int    `json:"x_wins"`
	OWins int    `json:"o_wins"`
	Draws int    `json:"draws"`
}

// SideFigures are one player's figures.
type SideFigures struct {
	Player       string  `json:"player"`
	Moves        int     `json:"moves"`
	Nodes        uint64  `json:"nodes"`
	NodesPerMove float64 `json:"nodes_per_move"`
}

// Odds are probabilities (or deviations) of the three results.
type Odds struct {
	XWin float64 `json:"x_win"`
	OWin float64 `json:"o_win"`
	Draw float64 `json:"draw"`
}

// OddsText are probabilities as fractions.
type OddsText struct {
	XWin string `json:"x_win"`
	OWin string `json:"o_win"`
	Draw string `json:"draw"`
}

// Merge implements tasks.Plan: it adds a result to the totals (sums, so
// that the order of the merges does not matter).
func (sp *simulatePlan) Merge(id string, data []byte) error {
	i, ok := sp.Index(id)
	if !ok {
		return fmt.Errorf("result of task %s: no such task", id)
	}
	if i == sp.games {
		var o oddsResult
		if err := json.Unmarshal(data, &o); err != nil {
			return fmt.Errorf("result of task %s: %w", id, err)
		}
		sp.odds = &o
		return nil
	}
	var r simulateResult
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("result of task %s: %w", id, err)
	}
	if r.Games != sp.count(i) {
		return fmt.Errorf("result of task %s: %d games, want %d", id, r.Games, sp.count(i))
	}
	sp.played += r.Games
	for j := range sp.wins {
		sp.wins[j] += r.Wins[j]
	}
	sp.plies += r.Plies
	sp.digest += r.Digest
	for m, w := range r.First {
		f := sp.first[m]
		for j := range w {
			f[j] += w[j]
		}
		sp.first[m] = f
	}
	for s := range sp.sides {
		sp.sides[s].Moves += r.Sides[s].Moves
		sp.sides[s].Nodes += r.Sides[s].Nodes
	}
	return nil
}

// Report implements tasks.Plan. The games of a task that failed are not
// counted.
func (sp *simulatePlan) Report(context.Context, tasks.Summary) (tasks.Report, error) {
	p := sp.params
	rep := &SimulateReport{Board: fmt.Sprintf("%dx%d", p.Rows, p.Cols), Rows: p.Rows, Cols: p.Cols, K: p.K, Seed: p.Seed,
		Games: p.Games, FirstMoves: []FirstMove{}, X: SideFigures{Player: p.X}, O: SideFigures{Player: p.O},
		Played: sp.played, XWins: sp.wins[0], OWins: sp.wins[1], Draws: sp.wins[2]}
	if o := sp.odds; o != nil {
		rep.Exact = &Odds{XWin: o.Numbers[0], OWin: o.Numbers[1], Draw: o.Numbers[2]}
		rep.ExactFractions = &OddsText{XWin: o.Fractions[0], OWin: o.Fractions[1], Draw: o.Fractions[2]}
	}
	plies, digest, first, sides := sp.plies, sp.digest, sp.first, sp.sides
	if rep.Played > 0 {
		rep.AverageLength = float64(plies) / float64(rep.Played)
	}
	rep.Digest = fmt.Sprintf("%016x", digest)
	for m, w := range first {
		var fm FirstMove
		if _, err := fmt.Sscanf(m, "%d,%d", &fm.Move[0], &fm.Move[1]); err != nil {
			return nil, fmt.Errorf("first move %q: %w", m, err)
		}
		fm.XWins, fm.OWins, fm.Draws = w[0], w[1], w[2]
		fm.Games = w[0] + w[1] + w[2]
		rep.FirstMoves = append(rep.FirstMoves, fm)
	}
	slices.SortFunc(rep.FirstMoves, func(a, b FirstMove) int {
		if a.Games != b.Games {
			return b.Games - a.Games
		}
		return (a.Move[0]*8 + a.Move[1]) - (b.Move[0]*8 + b.Move[1])
	})
	for s, f := range []*SideFigures{&rep.X, &rep.O} {
		f.Moves, f.Nodes = sides[s].Moves, sides[s].Nodes
		if f.Moves > 0 {
			f.NodesPerMove = float64(f.Nodes) / float64(f.Moves)
		}
	}
	if rep.Exact != nil && rep.Played > 0 {
		n := float64(rep.Played)
		dev := func(count int, q float64) float64 {
			sd := math.Sqrt(n * q * (1 - q))
			if sd == 0 {
				return 0 // a certain result: any count but the sure one is a bug, not a deviation
			}
			return (float64(count) - n*q) / sd
		}
		rep.Deviation = &Odds{XWin: dev(rep.XWins, rep.Exact.XWin), OWin: dev(rep.OWins, rep.Exact.OWin), Draw: dev(rep.Draws, rep.Exact.Draw)}
	}
	return rep, nil
}

// Text implements tasks.Report.
func (r *SimulateReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "m,n,k-game %d,%d,%d: %s (x) against %s (o), %s games, seed %d\n", r.Rows, r.Cols, r.K, r.X.Player, r.O.Player,
		tasks.Thousands(uint64(r.Games)), r.Seed)
	if r.Played < r.Games {
		fmt.Fprintf(&b, "%s of %s games played (the others' tasks failed)\n", tasks.Thousands(uint64(r.Played)), tasks.Thousands(uint64(r.Games)))
	}
	pct := func(n int) string {
		if r.Played == 0 {
			return tasks.Thousands(uint64(n))
		}
		return fmt.Sprintf("%s (%.2f%%)", tasks.Thousands(uint64(n)), 100*float64(n)/float64(r.Played))
	}
	row := func(label, format string, args ...any) { tasks.Row(&b, label, format, args...) }
	row("x wins", "%s", pct(r.XWins))
	row("o wins", "%s", pct(r.OWins))
	row("draws", "%s", pct(r.Draws))
	row("average length", "%.2f plies", r.AverageLength)
	if r.Exact != nil {
		row("exact odds: x wins", "%s = %.6f (simulated %+.2f standard errors)", r.ExactFractions.XWin, r.Exact.XWin, dev(r.Deviation, 0))
		row("  o wins", "%s = %.6f (%+.2f)", r.ExactFractions.OWin, r.Exact.OWin, dev(r.Deviation, 1))
		row("  draws", "%s = %.6f (%+.2f)", r.ExactFractions.Draw, r.Exact.Draw, dev(r.Deviation, 2))
	}
	const shown = 10
	for i, f := range r.FirstMoves[:min(len(r.FirstMoves), shown)] {
		label := ""
		if i == 0 {
			label = "first moves"
		}
		row(label, "%-5s %7s games: x %.1f%%, draws %.1f%%, o %.1f%%", fmt.Sprintf("%d,%d", f.Move[0], f.Move[1]),
			tasks.Thousands(uint64(f.Games)), 100*float64(f.XWins)/float64(f.Games), 100*float64(f.Draws)/float64(f.Games),
			100*float64(f.OWins)/float64(f.Games))
	}
	if n := len(r.FirstMoves); n > shown {
		row("", "... and %d more (--json lists them all)", n-shown)
	}
	for _, s := range []struct {
		side string
		f    SideFigures
	}{{"x", r.X}, {"o", r.O}} {
		if strings.HasPrefix(s.f.Player, "engine:") {
			row("nodes per move ("+s.side+")", "%.0f (%s)", s.f.NodesPerMove, s.f.Player)
		}
	}
	row("games digest", "%s", r.Digest)
	return b.String()
}

// dev is the deviation of result i, 0 if there is none.
func dev(d *Odds, i int) float64 {
	if d == nil {
		return 0
	}
	return [3]float64{d.XWin, d.OWin, d.Draw}[i]
}

// NewRunner implements tasks.Kind.
func (Simulate) NewRunner(tasks.Env) tasks.Runner {
	return &simulateRunner{players: map[string]player.Player{}}
}

// simulateRunner keeps its players (and their tables) across the tasks of
// a worker slot, one per game and specification.
type simulateRunner struct {
	players map[string]player.Player
}

// player returns the runner's player of spec for game g.
func (r *simulateRunner) player(g *mnk.Game, spec player.Spec) (player.Player, error) {
	key := g.Spec() + " " + spec.String()
	if pl := r.players[key]; pl != nil {
		return pl, nil
	}
	pl, err := player.New(spec, g)
	if err != nil {
		return nil, err
	}
	r.players[key] = pl
	return pl, nil
}

func (r *simulateRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var t simulateTask
	if err := json.Unmarshal(payload, &t); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.simulate task: %w", err))
	}
	g, specs, err := t.Validate()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	if t.Odds {
		return exactOdds(ctx, g, specs)
	}
	var players [2]player.Player
	for s, spec := range specs {
		if players[s], err = r.player(g, spec); err != nil {
			return tasks.Output{}, tasks.Permanent(err)
		}
	}
	if t.First < 0 || t.Count < 1 || t.First+t.Count > t.Games {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.simulate task: games %d+%d out of 0..%d", t.First, t.Count, t.Games))
	}
	res := simulateResult{First: map[string][3]int{}}
	for i := t.First; i < t.First+t.Count; i++ {
		if err := ctx.Err(); err != nil {
			return tasks.Output{}, err
		}
		if err := playGame(ctx, g, players, t.Seed, i, &res); err != nil {
			return tasks.Output{}, err
		}
	}
	data, err := json.Marshal(res)
	return tasks.Output{Data: data}, err
}

// playGame plays game i of a simulation and counts it in res. Its random
// numbers come from a generator of its own, seeded by (seed, i).
func playGame(ctx context.Context, g *mnk.Game, players [2]player.Player, seed uint64, i int, res *simulateResult) error {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:", i)
	var p mnk.Position
	var first string
	for ply := 0; ; ply++ {
		side := ply % 2
		c, err := players[side].Move(ctx, p, rng)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return tasks.Permanent(fmt.Errorf("game %d, ply %d: %w", i, ply, err))
		}
		if c.Cell < 0 || c.Cell >= 64 || g.Empty(p)>>uint(c.Cell)&1 == 0 {
			return tasks.Permanent(fmt.Errorf("game %d, ply %d: the %s player chose cell %d, which is not empty in %s",
				i, ply, []string{"x", "o"}[side], c.Cell, g.String(p)))
		}
		res.Sides[side].Moves++
		res.Sides[side].Nodes += c.Nodes
		move := fmt.Sprintf("%d,%d", c.Cell/8, c.Cell%8)
		if ply == 0 {
			first = move
		}
		fmt.Fprintf(h, " %s", move)
		var r mnk.Result
		p, r = g.Play(p, c.Cell)
		if r == mnk.Ongoing {
			continue
		}
		outcome := 2
		switch r {
		case mnk.XWin:
			outcome = 0
		case mnk.OWin:
			outcome = 1
		}
		res.Games++
		res.Wins[outcome]++
		res.Plies += ply + 1
		f := res.First[first]
		f[outcome]++
		res.First[first] = f
		res.Digest += h.Sum64()
		return nil
	}
}
