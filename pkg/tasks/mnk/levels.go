package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/mnk/levels"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// "mnk.levels" counts a game tree level by level (package levels): the
// positions of each ply, up to symmetry, partitioned into shards by a hash
// of the position. Stage p of the job is ply p: one task per shard, which
// reads the pieces that the tasks of ply p-1 wrote for its shard to the
// cluster's object store, merges them, counts its positions and writes
// their children as pieces for the shards of ply p+1. It takes boards of
// up to 25 cells on any shape (4x5, 3x7, 2x12, 5x5), where the tree
// counter of "mnk.count" keeps 16: no ply has to fit in one worker, whose
// children spill to disk past the job's memory budget.

func init() { tasks.Register(Levels{}) }

// MaxShards bounds the shards of a ply: a ply's pieces number the square
// of its shards.
const MaxShards = 256

// DefaultLevelsMemory is the memory budget of a task of mnk.levels that
// is given none.
const DefaultLevelsMemory = 1 << 30

// LevelsParams are the parameters of an "mnk.levels" job.
type LevelsParams struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	K    int `json:"k"`
	// Shards is the number of shards of each ply (0: chosen from the
	// board's size).
	Shards int `json:"shards"`
	// Memory bounds a task's records, in bytes (0: DefaultLevelsMemory);
	// past it a shard's children spill to disk.
	Memory int64 `json:"memory"`
}

// Spec checks the parameters of a new job and returns its spec.
func (p LevelsParams) Spec() (tasks.Spec, error) {
	if _, err := p.Validate(); err != nil {
		return tasks.Spec{}, err
	}
	return spec(Levels{}.Name(), p)
}

// Validate checks the parameters and returns the board.
func (p LevelsParams) Validate() (*levels.Board, error) {
	if p.Rows*p.Cols > levels.MaxCells && p.Rows > 0 && p.Cols > 0 {
		return nil, tasks.Invalid("board %dx%d has %d cells: exact counting is limited to boards of at most %d cells (e.g. 5x5, 4x6, 3x8, 2x12)",
			p.Rows, p.Cols, p.Rows*p.Cols, levels.MaxCells)
	}
	b, err := levels.NewBoard(p.Rows, p.Cols, p.K)
	if err != nil {
		return nil, tasks.Invalid("%v", err)
	}
	if p.Shards < 0 || p.Shards > MaxShards {
		return nil, tasks.Invalid("shards %d: want 1 to %d (0: automatic)", p.Shards, MaxShards)
	}
	if p.Memory != 0 && p.Memory < levels.MinMemory {
		return nil, tasks.Invalid("memory %s is too small for a task of the level count: it needs at least %s", FormatBytes(p.Memory), FormatBytes(levels.MinMemory))
	}
	if p.Memory < 0 {
		return nil, tasks.Invalid("memory %d: want a positive size", p.Memory)
	}
	return b, nil
}

// shards returns the number of shards of the job.
func (p LevelsParams) shards() int {
	if p.Shards > 0 {
		return p.Shards
	}
	return AutoShards(p.Rows * p.Cols)
}

// AutoShards is the number of shards of a count of a board of cells cells
// that gives none: a shard of the biggest ply of a few million positions,
// and enough of them that a cluster's workers share each ply.
func AutoShards(cells int) int {
	switch {
	case cells <= 9:
		return 1
	case cells <= 12:
		return 2
	case cells <= 16:
		return 4
	case cells <= 18:
		return 8
	case cells <= 21:
		return 16
	}
	return 64
}

func (p LevelsParams) memory() int64 {
	if p.Memory > 0 {
		return p.Memory
	}
	return DefaultLevelsMemory
}

// Levels is the "mnk.levels" kind.
type Levels struct{}

// Name implements tasks.Kind.
func (Levels) Name() string { return "mnk.levels" }

// Version implements tasks.Kind.
func (Levels) Version() int { return 1 }

// levelsTask is the payload of a task: one shard of one ply.
type levelsTask struct {
	Rows   int    `json:"rows"`
	Cols   int    `json:"cols"`
	K      int    `json:"k"`
	Ply    int    `json:"ply"`
	Shard  int    `json:"shard"`
	Shards int    `json:"shards"`
	Memory int64  `json:"memory"`
	Prefix string `json:"prefix"`
	// Value asks for the game's value instead (a solver's search, beside
	// the count): the task "value" of stage 0.
	Value bool `json:"value,omitempty"`
}

// valueResult is the result of the task "value".
type valueResult struct {
	Value  string `json:"value"` // win, draw, loss or unknown
	Reason string `json:"reason,omitempty"`
	Nodes  uint64 `json:"nodes"`
}

// ValueNodes bounds the search for the value of a level count's game:
// plenty for 4x5 (7,343 nodes) and 5x5 k=4; a game it does not settle is
// reported without a value, and why.
const ValueNodes = 20_000_000

// levelsPrefix starts the names of the pieces of job: named by the job,
// so that two jobs of one board never read each other's pieces, and that
// no task of another job is answered from the result cache by one of
// this job's (whose pieces it would not have written).
func levelsPrefix(job string) string { return "levels/" + job }

// Plan implements tasks.Kind.
func (Levels) Plan(_ context.Context, raw json.RawMessage, env tasks.PlanEnv) (tasks.Plan, error) {
	var p LevelsParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("mnk.levels parameters: %v", err)
	}
	b, err := p.Validate()
	if err != nil {
		return nil, err
	}
	if env.Job == "" {
		env.Job = "local"
	}
	lp := &levelsPlan{params: p, board: b, shards: p.shards(), objects: env.Objects, prefix: levelsPrefix(env.Job)}
	lp.results = make([]*levels.Stats, 0)
	width := len(strconv.Itoa(lp.shards - 1))
	add := func(ply, shard int) {
		payload, _ := json.Marshal(levelsTask{Rows: p.Rows, Cols: p.Cols, K: p.K, Ply: ply, Shard: shard,
			Shards: lp.shards, Memory: p.memory(), Prefix: lp.prefix})
		lp.tasks = append(lp.tasks, tasks.Task{ID: fmt.Sprintf("p%02d-s%0*d", ply, width, shard), Payload: payload})
		lp.where = append(lp.where, [2]int{ply, shard})
		lp.results = append(lp.results, nil)
	}
	add(0, levels.RootShard(lp.shards))
	payload, _ := json.Marshal(levelsTask{Rows: p.Rows, Cols: p.Cols, K: p.K, Value: true})
	lp.tasks = append(lp.tasks, tasks.Task{ID: "value", Payload: payload})
	lp.where = append(lp.where, [2]int{0, -1})
	lp.results = append(lp.results, nil)
	for ply := 1; ply <= b.Cells(); ply++ {
		for shard := range lp.shards {
			add(ply, shard)
		}
	}
	lp.index = make(map[string]int, len(lp.tasks))
	for i, t := range lp.tasks {
		lp.index[t.ID] = i
	}
	return lp, nil
}

type levelsPlan struct {
	params  LevelsParams
	board   *levels.Board
	shards  int
	objects tasks.Objects
	prefix  string
	tasks   []tasks.Task
	where   [][2]int // task -> ply, shard
	index   map[string]int
	results []*levels.Stats
	value   *valueResult
}

func (lp *levelsPlan) Tasks() []tasks.Task { return lp.tasks }

// Stage implements tasks.Staged: ply p is stage p.
func (lp *levelsPlan) Stage(i int) int { return lp.where[i][0] }

func (lp *levelsPlan) Merge(id string, data []byte) error {
	i, ok := lp.index[id]
	if !ok {
		return fmt.Errorf("mnk.levels: no task %q", id)
	}
	if id == "value" {
		var v valueResult
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("mnk.levels: result of task %s: %w", id, err)
		}
		lp.value = &v
		return nil
	}
	var st levels.Stats
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("mnk.levels: result of task %s: %w", id, err)
	}
	lp.results[i] = &st
	return nil
}

// Check implements tasks.Checks: a shard's figures hold together.
func (lp *levelsPlan) Check(id string, data []byte) error {
	if id == "value" {
		var v valueResult
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("result of task %s: %w", id, err)
		}
		switch v.Value {
		case "win", "draw", "loss", "unknown":
			return nil
		}
		return fmt.Errorf("task %s: no value %q", id, v.Value)
	}
	var st levels.Stats
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("result of task %s: %w", id, err)
	}
	var term, cterm uint64
	for r := range 3 {
		term += st.Terminal[r]
		cterm += st.CanonicalTerminal[r]
	}
	switch {
	case st.Canonical > st.Positions || st.Positions > 8*st.Canonical:
		return fmt.Errorf("task %s: %d positions for %d up to symmetry", id, st.Positions, st.Canonical)
	case cterm > st.Canonical || term > st.Positions || cterm > term:
		return fmt.Errorf("task %s: more terminal positions than positions", id)
	case st.Canonical > 0 && st.Nodes.IsZero():
		return fmt.Errorf("task %s: positions that no sequence reaches", id)
	}
	if i, ok := lp.index[id]; ok {
		t := lp.task(i)
		wrote := lp.shards
		if t.Ply == lp.board.Cells() {
			wrote = 0
		}
		if len(st.Read) != len(t.Sources()) || len(st.Wrote) != wrote {
			return fmt.Errorf("task %s: digests of %d pieces read and %d written, want %d and %d", id, len(st.Read), len(st.Wrote), len(t.Sources()), wrote)
		}
	}
	return nil
}

// task returns the levels.Task of task i.
func (lp *levelsPlan) task(i int) levels.Task {
	return levels.Task{Ply: lp.where[i][0], Shard: lp.where[i][1], Shards: lp.shards, Prefix: lp.prefix}
}

// checkPieces matches each piece that a task read with the piece its
// writer wrote (levels.CheckPieces), so that a piece changed in the
// object store between the two, by a worker that can write there, fails
// the count rather than changing it.
func (lp *levelsPlan) checkPieces() error {
	byPly := make([]map[int]*levels.Stats, lp.board.Cells()+1)
	for i, st := range lp.results {
		if st == nil || lp.where[i][1] < 0 {
			continue
		}
		ply := lp.where[i][0]
		if byPly[ply] == nil {
			byPly[ply] = map[int]*levels.Stats{}
		}
		byPly[ply][lp.where[i][1]] = st
	}
	for i, st := range lp.results {
		if st == nil || lp.where[i][1] < 0 || lp.where[i][0] == 0 {
			continue
		}
		if err := levels.CheckPieces(lp.task(i), *st, byPly[lp.where[i][0]-1]); err != nil {
			return err
		}
	}
	return nil
}

// LevelsReport is the report of an "mnk.levels" job. Its fields of the
// same names as CountReport's mean the same and have the same JSON keys;
// counts of games and nodes have every digit, past 2^64 too.
type LevelsReport struct {
	Board                      string                 `json:"board"`
	Rows                       int                    `json:"rows"`
	Cols                       int                    `json:"cols"`
	K                          int                    `json:"k"`
	Method                     string                 `json:"method"`
	Value                      string                 `json:"value"`
	Nodes                      levels.U128            `json:"nodes"`
	Games                      levels.U128            `json:"games"`
	XWins                      levels.U128            `json:"x_wins"`
	OWins                      levels.U128            `json:"o_wins"`
	Draws                      levels.U128            `json:"draws"`
	GamesByLength              map[string]levels.U128 `json:"games_by_length"`
	CanonicalGames             levels.U128            `json:"canonical_games"`
	Positions                  uint64                 `json:"positions"`
	CanonicalPositions         uint64                 `json:"canonical_positions"`
	PositionsByPly             map[string]uint64      `json:"positions_by_ply"`
	TerminalPositions          uint64                 `json:"terminal_positions"`
	TerminalByResult           ResultCounts           `json:"terminal_by_result"`
	CanonicalTerminalPositions uint64                 `json:"canonical_terminal_positions"`
	CanonicalTerminalByResult  ResultCounts           `json:"canonical_terminal_by_result"`
	Shards                     int                    `json:"shards"`
	Memory                     int64                  `json:"memory"`
	Plies                      []LevelsPly            `json:"plies"`
	NotComputed                map[string]string      `json:"not_computed,omitempty"`
}

// LevelsPly is one ply of a level count: its positions, and what its
// tasks moved and took.
type LevelsPly struct {
	Ply       int         `json:"ply"`
	Positions uint64      `json:"positions"`
	Canonical uint64      `json:"canonical"`
	Nodes     levels.U128 `json:"nodes"`
	Terminal  uint64      `json:"terminal"`
	// Children counts the child records its positions made (one per
	// distinct child orbit of each), before they were merged.
	Children uint64 `json:"children"`
	BytesIn  uint64 `json:"bytes_in"`
	BytesOut uint64 `json:"bytes_out"`
	Spills   int    `json:"spills"`
	// Seconds adds up its tasks' times; Tasks counts those merged.
	Seconds float64 `json:"seconds"`
	Tasks   int     `json:"tasks"`
}

// Report implements tasks.Plan.
func (lp *levelsPlan) Report(ctx context.Context, _ tasks.Summary) (tasks.Report, error) {
	b, p := lp.board, lp.params
	if err := lp.checkPieces(); err != nil {
		lp.deleteLast(ctx)
		return nil, err
	}
	rep := &LevelsReport{
		Board: fmt.Sprintf("%dx%d", p.Rows, p.Cols), Rows: p.Rows, Cols: p.Cols, K: p.K, Method: "levels",
		Value: "unknown", GamesByLength: map[string]levels.U128{}, PositionsByPly: map[string]uint64{},
		Shards: lp.shards, Memory: p.memory(),
	}
	switch {
	case lp.value == nil:
		rep.NotComputed = map[string]string{"value": "the solver's task failed"}
	case lp.value.Value == "unknown":
		rep.NotComputed = map[string]string{"value": lp.value.Reason}
	default:
		rep.Value = lp.value.Value
	}
	plies := make([]levels.Stats, b.Cells()+1)
	rep.Plies = make([]LevelsPly, b.Cells()+1)
	for i, st := range lp.results {
		if st == nil || lp.where[i][1] < 0 {
			continue // failed: the figures leave it out
		}
		ply := lp.where[i][0]
		plies[ply].Add(*st)
		rep.Plies[ply].Tasks++
	}
	var all levels.Stats
	for ply, st := range plies {
		all.Add(st)
		term := st.Terminal[levels.XWins] + st.Terminal[levels.OWins] + st.Terminal[levels.Draws]
		rep.Plies[ply] = LevelsPly{Ply: ply, Positions: st.Positions, Canonical: st.Canonical, Nodes: st.Nodes,
			Terminal: term, Children: st.Children, BytesIn: st.BytesIn, BytesOut: st.BytesOut, Spills: st.Spills,
			Seconds: st.Seconds, Tasks: rep.Plies[ply].Tasks}
		if st.Positions > 0 {
			rep.PositionsByPly[strconv.Itoa(ply)] = st.Positions
		}
		if g := st.Games[levels.XWins].Add(st.Games[levels.OWins]).Add(st.Games[levels.Draws]); !g.IsZero() {
			rep.GamesByLength[strconv.Itoa(ply)] = g
		}
	}
	rep.Nodes = all.Nodes
	rep.XWins, rep.OWins, rep.Draws = all.Games[levels.XWins], all.Games[levels.OWins], all.Games[levels.Draws]
	rep.Games = rep.XWins.Add(rep.OWins).Add(rep.Draws)
	rep.CanonicalGames = all.CanonicalGames
	rep.Positions, rep.CanonicalPositions = all.Positions, all.Canonical
	rep.TerminalByResult = ResultCounts{XWins: all.Terminal[levels.XWins], OWins: all.Terminal[levels.OWins], Draws: all.Terminal[levels.Draws]}
	rep.CanonicalTerminalByResult = ResultCounts{XWins: all.CanonicalTerminal[levels.XWins], OWins: all.CanonicalTerminal[levels.OWins], Draws: all.CanonicalTerminal[levels.Draws]}
	rep.TerminalPositions = rep.TerminalByResult.XWins + rep.TerminalByResult.OWins + rep.TerminalByResult.Draws
	rep.CanonicalTerminalPositions = rep.CanonicalTerminalByResult.XWins + rep.CanonicalTerminalByResult.OWins + rep.CanonicalTerminalByResult.Draws
	lp.deleteLast(ctx)
	return rep, nil
}

// deleteLast deletes the pieces of the last ply, which no later task
// deletes (each task deletes those its shard read a ply before), if the
// object store can.
func (lp *levelsPlan) deleteLast(ctx context.Context) {
	d, ok := lp.objects.(tasks.Deleter)
	if !ok {
		return
	}
	t := levels.Task{Ply: lp.board.Cells(), Shards: lp.shards, Prefix: lp.prefix}
	for shard := range lp.shards {
		for _, src := range t.Sources() {
			if ctx.Err() != nil {
				return
			}
			_ = d.Delete(ctx, levels.PieceName(t.Prefix, t.Ply, shard, src))
		}
	}
}

// Text implements tasks.Report.
func (r *LevelsReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "m,n,k-game %d,%d,%d: %s, %s, %d in a row (counted level by level, %s)\n", r.Rows, r.Cols, r.K,
		tasks.Count(r.Rows, "row"), tasks.Count(r.Cols, "column"), r.K, tasks.Count(r.Shards, "shard"))
	row := func(label, format string, args ...any) { tasks.Row(&b, label, format, args...) }
	th := func(n levels.U128) string { return tasks.Digits(n.String()) }
	if why, ok := r.NotComputed["value"]; ok {
		row("value (first player)", "unknown: %s", why)
	} else {
		row("value (first player)", "%s (proof-number search)", r.Value)
	}
	row("tree nodes", "%s", th(r.Nodes))
	row("complete games", "%s", th(r.Games))
	row("  X wins", "%s", th(r.XWins))
	row("  O wins", "%s", th(r.OWins))
	row("  draws", "%s", th(r.Draws))
	row("games up to symmetry", "%s", th(r.CanonicalGames))
	row("positions", "%s (%s up to symmetry)", tasks.Thousands(r.Positions), tasks.Thousands(r.CanonicalPositions))
	row("terminal positions", "%s: X wins %s, O wins %s, draws %s", tasks.Thousands(r.TerminalPositions),
		tasks.Thousands(r.TerminalByResult.XWins), tasks.Thousands(r.TerminalByResult.OWins), tasks.Thousands(r.TerminalByResult.Draws))
	row("  up to symmetry", "%s: X wins %s, O wins %s, draws %s", tasks.Thousands(r.CanonicalTerminalPositions),
		tasks.Thousands(r.CanonicalTerminalByResult.XWins), tasks.Thousands(r.CanonicalTerminalByResult.OWins), tasks.Thousands(r.CanonicalTerminalByResult.Draws))
	fmt.Fprintf(&b, "\n%4s %16s %14s %22s %14s %10s %10s %8s\n", "ply", "positions", "canonical", "nodes", "games", "moved", "spills", "seconds")
	for _, p := range r.Plies {
		games := r.GamesByLength[strconv.Itoa(p.Ply)]
		fmt.Fprintf(&b, "%4d %16s %14s %22s %14s %10s %10d %8.1f\n", p.Ply, tasks.Thousands(p.Positions), tasks.Thousands(p.Canonical),
			th(p.Nodes), th(games), FormatBytes(int64(p.BytesOut)), p.Spills, p.Seconds)
	}
	return b.String()
}

// FormatBytes writes a size in the largest binary unit that keeps it at
// least 1: "64 KiB", "1.5 GiB".
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 || f == float64(int64(f)) {
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// ParseBytes reads a size: a whole number of bytes, or a number with a
// unit, KiB, MiB, GiB, TiB (or K, M, G, T, KB, MB, GB, TB: binary all).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q: want a size such as 512MiB or 2GiB", s)
	}
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20,
		"G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}
	sh, ok := shift[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (want KiB, MiB, GiB or TiB)", s, t[i:])
	}
	v := f * float64(int64(1)<<sh)
	if v > 1<<62 {
		return 0, fmt.Errorf("%q: too big", s)
	}
	return int64(v), nil
}

// Size implements tasks.Sizer: the root's task and the value's, and a
// task per shard of each ply past the first.
func (Levels) Size(raw json.RawMessage) (tasks.Size, error) {
	var p LevelsParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return tasks.Size{}, tasks.Invalid("mnk.levels parameters: %v", err)
	}
	b, err := p.Validate()
	if err != nil {
		return tasks.Size{}, err
	}
	return tasks.Size{Tasks: 2 + b.Cells()*p.shards(), By: fmt.Sprintf("--board %dx%d --shards %d", p.Rows, p.Cols, p.shards())}, nil
}
