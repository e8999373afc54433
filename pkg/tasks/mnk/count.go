// Package mnk holds the job kinds of m,n,k-games.
//
// "mnk.count" enumerates a game tree exactly. The plan expands the tree
// breadth-first to the split depth over canonical positions (positions equal
// up to symmetry are one), carrying for each orbit the number of move
// sequences that reach it (paths) and the number of canonical paths (each
// distinct child orbit of a node is one edge). Each non-terminal orbit at the
// split depth is one task. A task's statistics (nodes, games by length,
// canonical games, value) depend only on its position, so the report is the
// top of the tree plus the sum of paths x statistics over the tasks: it does
// not depend on the split depth or on how many workers ran it.
//
// Distinct positions cannot be summed over overlapping subtrees; they are
// counted by reverse search (count.Positions in pkg/engine/mnk/count),
// whose subtrees at the split depth partition the orbits below it exactly.
package mnk

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// MaxCountCells bounds the boards whose trees can be counted exactly: the
// memo grows with the number of positions (about 3^cells / 10), and the
// number of games outgrows 64 bits at about 20 cells.
const MaxCountCells = 16

// autoSplitTasks is the number of tasks the automatic split depth aims for.
const autoSplitTasks = 16

func init() { tasks.Register(Count{}) }

// CountParams are the parameters of an "mnk.count" job.
type CountParams struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	K    int `json:"k"`
	// SplitDepth is the ply at which the tree is cut into tasks; -1 chooses
	// the smallest depth with at least 16 tasks.
	SplitDepth int `json:"split_depth"`
}

// DefaultCountParams are what a count takes for the parameters it is not
// given: the default board (DefaultRows x DefaultCols, its DefaultK) and
// an automatic split.
func DefaultCountParams() CountParams {
	return CountParams{Rows: DefaultRows, Cols: DefaultCols, K: DefaultK(DefaultRows, DefaultCols), SplitDepth: -1}
}

// Spec checks the parameters of a new job, as analyze mnk count and the
// web's jobs API submit it, and returns the job's spec.
func (p CountParams) Spec() (tasks.Spec, error) {
	if _, err := p.Validate(); err != nil {
		return tasks.Spec{}, err
	}
	return spec(Count{}.Name(), p)
}

// Validate checks the parameters and returns the game.
func (p CountParams) Validate() (*mnk.Game, error) {
	g, err := newGame(p.Rows, p.Cols, p.K, MaxCountCells, "exact counting", "4x4, 3x5, 2x8")
	if err != nil {
		return nil, err
	}
	if p.SplitDepth < -1 || p.SplitDepth > g.Cells() {
		return nil, tasks.Invalid("split depth %d is out of range for a %dx%d board: want -1 (automatic) or 0 to %d",
			p.SplitDepth, p.Rows, p.Cols, g.Cells())
	}
	return g, nil
}

// Count is the "mnk.count" kind.
type Count struct{}

// Name implements tasks.Kind.
func (Count) Name() string { return "mnk.count" }

// Version implements tasks.Kind.
func (Count) Version() int { return 1 }

// positionKey is the cache key of a position under a game's prefix.
func positionKey(prefix []byte, p mnk.Position) []byte {
	k := append([]byte(nil), prefix...)
	k = binary.BigEndian.AppendUint64(k, p.X)
	return binary.BigEndian.AppendUint64(k, p.O)
}

// countTask is the payload of one task: a canonical position at the split
// depth.
type countTask struct {
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
	K    int    `json:"k"`
	X    uint64 `json:"x"`
	O    uint64 `json:"o"`
}

// countResult is what a task returns: the statistics of its subtree and the
// counts of its reverse-search subtree.
type countResult struct {
	Nodes             uint64    `json:"nodes"`
	WinsFrom          int       `json:"wins_from"`
	Wins              []uint64  `json:"wins"`
	Draws             uint64    `json:"draws"`
	CanonicalGames    uint64    `json:"canonical_games"`
	Value             mnk.Value `json:"value"`
	Positions         uint64    `json:"positions"`
	Canonical         uint64    `json:"canonical"`
	Terminal          [4]uint64 `json:"terminal"`
	CanonicalTerminal [4]uint64 `json:"canonical_terminal"`
	ByPly             []uint64  `json:"by_ply"`
}

// Plan implements tasks.Kind.
func (Count) Plan(ctx context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p CountParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("mnk.count parameters: %v", err)
	}
	g, err := p.Validate()
	if err != nil {
		return nil, err
	}
	return newCountPlan(ctx, g, p)
}

// node is an orbit in the top of the tree.
type node struct {
	pos    mnk.Position
	orbit  uint64
	res    mnk.Result
	paths  uint64 // move sequences from the root into this orbit
	cpaths uint64 // canonical paths
	kids   []int32
	task   int // index in tasks, or -1
}

type countPlan struct {
	tasks.Results
	g      *mnk.Game
	params CountParams
	split  int
	layers [][]node
	tasks  []tasks.Task
	where  [][2]int // task index -> layer, node
}

func newCountPlan(ctx context.Context, g *mnk.Game, p CountParams) (*countPlan, error) {
	cp := &countPlan{Results: make(tasks.Results), g: g, params: p}
	root := node{pos: mnk.Position{}, orbit: 1, paths: 1, cpaths: 1, task: -1}
	if g.Cells() == 0 {
		root.res = mnk.Draw
	}
	cp.layers = [][]node{{root}}
	target := p.SplitDepth
	for d := 0; ; d++ {
		layer := cp.layers[d]
		open := 0
		for _, n := range layer {
			if n.res == mnk.Ongoing {
				open++
			}
		}
		if target >= 0 && d == target || target < 0 && (open >= autoSplitTasks || open == 0) || d == g.Cells() {
			cp.split = d
			break
		}
		next, err := cp.expand(ctx, layer)
		if err != nil {
			return nil, err
		}
		cp.layers = append(cp.layers, next)
	}
	last := cp.layers[cp.split]
	order := make([]int, 0, len(last))
	for i, n := range last {
		if n.res == mnk.Ongoing {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		pa, pb := last[a].pos, last[b].pos
		if pa.X != pb.X {
			return cmpU(pa.X, pb.X)
		}
		return cmpU(pa.O, pb.O)
	})
	width := len(strconv.Itoa(max(len(order)-1, 0)))
	for ti, i := range order {
		n := &last[i]
		n.task = ti
		payload, _ := json.Marshal(countTask{Rows: g.Rows, Cols: g.Cols, K: g.K, X: n.pos.X, O: n.pos.O})
		cp.tasks = append(cp.tasks, tasks.Task{ID: fmt.Sprintf("p%0*d", width, ti), Payload: payload})
		cp.where = append(cp.where, [2]int{cp.split, i})
	}
	return cp, nil
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// expand builds the next layer: every orbit reachable in one move from the
// open orbits of layer, with path counts. From a canonical representative,
// each move into an orbit adds the parent's paths (all members of an orbit
// have the same number of moves into each child orbit); each distinct child
// orbit adds the parent's canonical paths once.
func (cp *countPlan) expand(ctx context.Context, layer []node) ([]node, error) {
	var next []node
	index := map[mnk.Position]int32{}
	for pi := range layer {
		if err := stopped(ctx, pi); err != nil {
			return nil, err
		}
		parent := &layer[pi]
		if parent.res != mnk.Ongoing {
			continue
		}
		for empty := cp.g.Empty(parent.pos); empty != 0; empty &= empty - 1 {
			child, res := cp.g.Play(parent.pos, bits.TrailingZeros64(empty))
			canon, orbit := cp.g.Canonical(child)
			ci, ok := index[canon]
			if !ok {
				ci = int32(len(next))
				index[canon] = ci
				next = append(next, node{pos: canon, orbit: uint64(orbit), res: res, task: -1})
			}
			next[ci].paths += parent.paths
			if !slices.Contains(parent.kids, ci) {
				parent.kids = append(parent.kids, ci)
				next[ci].cpaths += parent.cpaths
			}
		}
	}
	return next, nil
}

// Tasks implements tasks.Plan.
func (cp *countPlan) Tasks() []tasks.Task { return cp.tasks }

// CountReport is the report of an "mnk.count" job.
type CountReport struct {
	Board                      string            `json:"board"`
	Rows                       int               `json:"rows"`
	Cols                       int               `json:"cols"`
	K                          int               `json:"k"`
	Value                      string            `json:"value"`
	Nodes                      uint64            `json:"nodes"`
	Games                      uint64            `json:"games"`
	XWins                      uint64            `json:"x_wins"`
	OWins                      uint64            `json:"o_wins"`
	Draws                      uint64            `json:"draws"`
	GamesByLength              map[string]uint64 `json:"games_by_length"`
	CanonicalGames             uint64            `json:"canonical_games"`
	Positions                  uint64            `json:"positions"`
	CanonicalPositions         uint64            `json:"canonical_positions"`
	PositionsByPly             map[string]uint64 `json:"positions_by_ply"`
	TerminalPositions          uint64            `json:"terminal_positions"`
	TerminalByResult           ResultCounts      `json:"terminal_by_result"`
	CanonicalTerminalPositions uint64            `json:"canonical_terminal_positions"`
	CanonicalTerminalByResult  ResultCounts      `json:"canonical_terminal_by_result"`
	SplitDepth                 int               `json:"split_depth"`
}

// ResultCounts counts something by game result.
type ResultCounts struct {
	XWins uint64 `json:"x_wins"`
	OWins uint64 `json:"o_wins"`
	Draws uint64 `json:"draws"`
}

func resultCounts(c [4]uint64) ResultCounts {
	return ResultCounts{XWins: c[mnk.XWin], OWins: c[mnk.OWin], Draws: c[mnk.Draw]}
}

// acc accumulates with overflow detection: a wrong number is worse than none.
type acc struct{ overflow bool }

func (a *acc) add(dst *uint64, x uint64) {
	s, c := bits.Add64(*dst, x, 0)
	a.overflow = a.overflow || c != 0
	*dst = s
}

func (a *acc) addMul(dst *uint64, m, x uint64) {
	hi, lo := bits.Mul64(m, x)
	a.overflow = a.overflow || hi != 0
	a.add(dst, lo)
}

// Report implements tasks.Plan.
func (cp *countPlan) Report(_ context.Context, _ tasks.Summary) (tasks.Report, error) {
	g := cp.g
	var a acc
	var nodes, draws, cgames uint64
	var wins [65]uint64
	var pc count.PositionCounts
	values := make([][]mnk.Value, len(cp.layers))
	known := make([][]bool, len(cp.layers))
	for d, layer := range cp.layers {
		values[d] = make([]mnk.Value, len(layer))
		known[d] = make([]bool, len(layer))
		for i, n := range layer {
			if n.task >= 0 {
				continue // the task counts its own root
			}
			a.add(&nodes, n.paths)
			pc.Canonical++
			pc.Positions += n.orbit
			pc.ByPly[d] += n.orbit
			switch n.res {
			case mnk.Ongoing:
				continue
			case mnk.Draw:
				a.add(&draws, n.paths)
				values[d][i] = mnk.Drawn
			default:
				a.add(&wins[d], n.paths)
				values[d][i] = mnk.Loss // the side to move has lost
			}
			known[d][i] = true
			a.add(&cgames, n.cpaths)
			pc.Terminal[n.res] += n.orbit
			pc.CanonicalTerminal[n.res]++
		}
	}
	for ti, t := range cp.tasks {
		data, ok := cp.Result(t.ID)
		if !ok {
			continue // failed: the figures leave it out
		}
		var r countResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
		}
		d, i := cp.where[ti][0], cp.where[ti][1]
		n := cp.layers[d][i]
		a.addMul(&nodes, n.paths, r.Nodes)
		for j, w := range r.Wins {
			if l := r.WinsFrom + j; l >= 0 && l < len(wins) {
				a.addMul(&wins[l], n.paths, w)
			}
		}
		a.addMul(&draws, n.paths, r.Draws)
		a.addMul(&cgames, n.cpaths, r.CanonicalGames)
		pc.Positions += r.Positions
		pc.Canonical += r.Canonical
		for res := range 4 {
			pc.Terminal[res] += r.Terminal[res]
			pc.CanonicalTerminal[res] += r.CanonicalTerminal[res]
		}
		for ply, c := range r.ByPly {
			pc.ByPly[ply] += c
		}
		values[d][i], known[d][i] = r.Value, true
	}
	if a.overflow {
		return nil, errors.New("a count overflowed 64 bits")
	}
	// Negamax over the top of the tree.
	for d := len(cp.layers) - 1; d >= 0; d-- {
		for i, n := range cp.layers[d] {
			if n.res != mnk.Ongoing || n.task >= 0 {
				continue
			}
			best, ok := mnk.Loss, len(n.kids) > 0
			for _, k := range n.kids {
				if !known[d+1][k] {
					ok = false
					break
				}
				best = max(best, -values[d+1][k])
			}
			values[d][i], known[d][i] = best, ok
		}
	}
	rep := &CountReport{
		Board: fmt.Sprintf("%dx%d", g.Rows, g.Cols), Rows: g.Rows, Cols: g.Cols, K: g.K,
		Value: "unknown",
		Nodes: nodes, Draws: draws, CanonicalGames: cgames,
		GamesByLength:              map[string]uint64{},
		PositionsByPly:             map[string]uint64{},
		Positions:                  pc.Positions,
		CanonicalPositions:         pc.Canonical,
		TerminalByResult:           resultCounts(pc.Terminal),
		CanonicalTerminalByResult:  resultCounts(pc.CanonicalTerminal),
		TerminalPositions:          pc.Terminal[mnk.XWin] + pc.Terminal[mnk.OWin] + pc.Terminal[mnk.Draw],
		CanonicalTerminalPositions: pc.CanonicalTerminal[mnk.XWin] + pc.CanonicalTerminal[mnk.OWin] + pc.CanonicalTerminal[mnk.Draw],
		SplitDepth:                 cp.split,
	}
	if known[0][0] {
		rep.Value = valueWord(values[0][0])
	}
	byLength := wins
	byLength[g.Cells()] += draws
	for l, c := range byLength {
		if c == 0 {
			continue
		}
		rep.GamesByLength[strconv.Itoa(l)] = c
		if l < len(wins) && wins[l] > 0 {
			if l%2 == 1 {
				a.add(&rep.XWins, wins[l])
			} else {
				a.add(&rep.OWins, wins[l])
			}
		}
	}
	a.add(&rep.Games, rep.XWins)
	a.add(&rep.Games, rep.OWins)
	a.add(&rep.Games, draws)
	for ply, c := range pc.ByPly {
		if c != 0 {
			rep.PositionsByPly[strconv.Itoa(ply)] = c
		}
	}
	if a.overflow {
		return nil, errors.New("a count overflowed 64 bits")
	}
	return rep, nil
}

// valueWord names a value for the first player.
func valueWord(v mnk.Value) string {
	switch v {
	case mnk.Win:
		return "win"
	case mnk.Loss:
		return "loss"
	}
	return "draw"
}

// Text implements tasks.Report.
func (r *CountReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "m,n,k-game %d,%d,%d: %s, %s, %d in a row\n", r.Rows, r.Cols, r.K, tasks.Count(r.Rows, "row"), tasks.Count(r.Cols, "column"), r.K)
	row := func(label, format string, args ...any) { tasks.Row(&b, label, format, args...) }
	row("value (first player)", "%s", r.Value)
	row("tree nodes", "%s", tasks.Thousands(r.Nodes))
	row("complete games", "%s", tasks.Thousands(r.Games))
	row("  X wins", "%s", tasks.Thousands(r.XWins))
	row("  O wins", "%s", tasks.Thousands(r.OWins))
	row("  draws", "%s", tasks.Thousands(r.Draws))
	row("games up to symmetry", "%s", tasks.Thousands(r.CanonicalGames))
	lengths := make([]int, 0, len(r.GamesByLength))
	for l := range r.GamesByLength {
		n, _ := strconv.Atoi(l)
		lengths = append(lengths, n)
	}
	slices.Sort(lengths)
	for i, l := range lengths {
		label := ""
		if i == 0 {
			label = "games by length (plies)"
		}
		row(label, "%2d: %s", l, tasks.Thousands(r.GamesByLength[strconv.Itoa(l)]))
	}
	row("positions", "%s (%s up to symmetry)", tasks.Thousands(r.Positions), tasks.Thousands(r.CanonicalPositions))
	row("terminal positions", "%s (%s up to symmetry)", tasks.Thousands(r.TerminalPositions), tasks.Thousands(r.CanonicalTerminalPositions))
	t, ct := r.TerminalByResult, r.CanonicalTerminalByResult
	row("  X wins", "%s (%s)", tasks.Thousands(t.XWins), tasks.Thousands(ct.XWins))
	row("  O wins", "%s (%s)", tasks.Thousands(t.OWins), tasks.Thousands(ct.OWins))
	row("  draws", "%s (%s)", tasks.Thousands(t.Draws), tasks.Thousands(ct.Draws))
	row("split depth", "%d", r.SplitDepth)
	return b.String()
}

// Check implements tasks.Checks: a subtree's figures obey the identities
// of a game tree whose nodes at ply j (j stones on the board) each have
// one child per empty cell. From the root at ply d (the task's), the
// paths N_j that reach ply j are N_d = 1 and N_{j+1} = (cells - j) (N_j -
// G_j), where G_j are the games that end at ply j (the wins at j, and at
// a full board the draws too); every path at the full board ends a game;
// and the nodes are the sum of the N_j. Draws and nodes follow from the
// wins, so a figure changed alone is caught; a result changed throughout,
// consistently, is what a second worker catches (tasks.Spec.Verify).
func (cp *countPlan) Check(id string, data []byte) error {
	var r countResult
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("not a count result: %w", err)
	}
	cells, d := cp.g.Cells(), cp.split
	if r.WinsFrom < 0 || r.WinsFrom+len(r.Wins) > cells+1 || len(r.Wins) > 0 && r.WinsFrom <= d {
		return fmt.Errorf("wins at plies %d to %d, past the plies %d to %d of the task's subtree", r.WinsFrom, r.WinsFrom+len(r.Wins)-1, d+1, cells)
	}
	games := func(j int) uint64 {
		var g uint64
		if l := j - r.WinsFrom; l >= 0 && l < len(r.Wins) {
			g = r.Wins[l]
		}
		if j == cells {
			g += r.Draws
		}
		return g
	}
	n, nodes := uint64(1), uint64(0)
	for j := d; ; j++ {
		var carry uint64
		if nodes, carry = bits.Add64(nodes, n, 0); carry != 0 {
			return errors.New("nodes past 64 bits")
		}
		g := games(j)
		if g > n {
			return fmt.Errorf("%d games end at ply %d, which only %d paths reach", g, j, n)
		}
		if j == cells {
			if g != n {
				return fmt.Errorf("%d games end on the full board, which %d paths reach", g, n)
			}
			break
		}
		hi, lo := bits.Mul64(uint64(cells-j), n-g)
		if hi != 0 {
			return errors.New("paths past 64 bits")
		}
		n = lo
	}
	if nodes != r.Nodes {
		return fmt.Errorf("%d nodes, but its games make a tree of %d", r.Nodes, nodes)
	}
	var sum uint64
	for _, c := range r.ByPly {
		sum += c
	}
	if sum != r.Positions || r.Canonical > r.Positions || r.CanonicalGames > nodes {
		return fmt.Errorf("positions %d, by ply %d, canonical %d: they disagree", r.Positions, sum, r.Canonical)
	}
	return nil
}
