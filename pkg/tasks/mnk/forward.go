package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/mnk/forward"
	"github.com/woprlabs/wopr/pkg/engine/mnk/levels"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// "mnk.forward" counts a game tree the plain way, in one task: ply by
// ply, every position (not up to symmetry) in a hash table of one worker
// (package forward). It shares no counting code with mnk.count or
// mnk.levels, and is the second of the two ways that every count past 16
// cells is computed (docs/results.md); it needs the memory of the largest
// ply, about 10 GB for 4x5.

func init() { tasks.Register(Forward{}) }

// ForwardParams are the parameters of an "mnk.forward" job.
type ForwardParams struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	K    int `json:"k"`
}

// Spec checks the parameters of a new job and returns its spec.
func (p ForwardParams) Spec() (tasks.Spec, error) {
	if err := p.validate(); err != nil {
		return tasks.Spec{}, err
	}
	return spec(Forward{}.Name(), p)
}

func (p ForwardParams) validate() error {
	_, err := LevelsParams{Rows: p.Rows, Cols: p.Cols, K: p.K}.Validate()
	return err
}

// Forward is the "mnk.forward" kind.
type Forward struct{}

// Name implements tasks.Kind.
func (Forward) Name() string { return "mnk.forward" }

// Version implements tasks.Kind.
func (Forward) Version() int { return 1 }

// Plan implements tasks.Kind.
func (Forward) Plan(_ context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p ForwardParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("mnk.forward parameters: %v", err)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &forwardPlan{params: p, tasks: []tasks.Task{{ID: "count", Payload: raw}}}, nil
}

type forwardPlan struct {
	params ForwardParams
	tasks  []tasks.Task
	result *ForwardReport
}

func (fp *forwardPlan) Tasks() []tasks.Task { return fp.tasks }

func (fp *forwardPlan) Merge(id string, data []byte) error {
	var r ForwardReport
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("mnk.forward: result of task %s: %w", id, err)
	}
	fp.result = &r
	return nil
}

func (fp *forwardPlan) Report(context.Context, tasks.Summary) (tasks.Report, error) {
	if fp.result == nil {
		p := fp.params
		return &ForwardReport{Board: fmt.Sprintf("%dx%d", p.Rows, p.Cols), Rows: p.Rows, Cols: p.Cols, K: p.K, Method: "forward"}, nil
	}
	return fp.result, nil
}

// NewRunner implements tasks.Kind.
func (Forward) NewRunner(tasks.Env) tasks.Runner { return forwardRunner{} }

type forwardRunner struct{}

func (forwardRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var p ForwardParams
	if err := json.Unmarshal(payload, &p); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.forward task: %w", err))
	}
	st, err := forward.Count(ctx, p.Rows, p.Cols, p.K)
	if err != nil {
		return tasks.Output{}, err
	}
	data, err := json.Marshal(forwardReport(p, st))
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// ForwardReport is the report of an "mnk.forward" job: the fields of
// LevelsReport that a count without symmetry classes of games gives,
// under the same JSON keys.
type ForwardReport struct {
	Board                      string                 `json:"board"`
	Rows                       int                    `json:"rows"`
	Cols                       int                    `json:"cols"`
	K                          int                    `json:"k"`
	Method                     string                 `json:"method"`
	Nodes                      levels.U128            `json:"nodes"`
	Games                      levels.U128            `json:"games"`
	XWins                      levels.U128            `json:"x_wins"`
	OWins                      levels.U128            `json:"o_wins"`
	Draws                      levels.U128            `json:"draws"`
	GamesByLength              map[string]levels.U128 `json:"games_by_length"`
	Positions                  uint64                 `json:"positions"`
	CanonicalPositions         uint64                 `json:"canonical_positions"`
	PositionsByPly             map[string]uint64      `json:"positions_by_ply"`
	TerminalPositions          uint64                 `json:"terminal_positions"`
	TerminalByResult           ResultCounts           `json:"terminal_by_result"`
	CanonicalTerminalPositions uint64                 `json:"canonical_terminal_positions"`
	CanonicalTerminalByResult  ResultCounts           `json:"canonical_terminal_by_result"`
	TableBytes                 uint64                 `json:"table_bytes"`
}

func u128(n *big.Int) levels.U128 {
	v, _ := levels.ParseU128(n.String())
	return v
}

func forwardReport(p ForwardParams, st *forward.Stats) *ForwardReport {
	r := &ForwardReport{Board: fmt.Sprintf("%dx%d", p.Rows, p.Cols), Rows: p.Rows, Cols: p.Cols, K: p.K, Method: "forward",
		Nodes: u128(st.Nodes), Games: u128(st.Games), XWins: u128(st.XWins), OWins: u128(st.OWins), Draws: u128(st.Draws),
		GamesByLength: map[string]levels.U128{}, PositionsByPly: map[string]uint64{},
		Positions: st.Positions, CanonicalPositions: st.Canonical, TableBytes: st.TableBytes,
		TerminalByResult:          ResultCounts{XWins: st.Terminal[forward.XWin], OWins: st.Terminal[forward.OWin], Draws: st.Terminal[forward.Draw]},
		CanonicalTerminalByResult: ResultCounts{XWins: st.CanonicalTerminal[forward.XWin], OWins: st.CanonicalTerminal[forward.OWin], Draws: st.CanonicalTerminal[forward.Draw]},
	}
	r.TerminalPositions = r.TerminalByResult.XWins + r.TerminalByResult.OWins + r.TerminalByResult.Draws
	r.CanonicalTerminalPositions = r.CanonicalTerminalByResult.XWins + r.CanonicalTerminalByResult.OWins + r.CanonicalTerminalByResult.Draws
	for l, g := range st.GamesByLength {
		if g.Sign() != 0 {
			r.GamesByLength[strconv.Itoa(l)] = u128(g)
		}
	}
	for ply, n := range st.PositionsByPly {
		if n != 0 {
			r.PositionsByPly[strconv.Itoa(ply)] = n
		}
	}
	return r
}

// Text implements tasks.Report.
func (r *ForwardReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "m,n,k-game %d,%d,%d: %s, %s, %d in a row (the plain forward count)\n", r.Rows, r.Cols, r.K,
		tasks.Count(r.Rows, "row"), tasks.Count(r.Cols, "column"), r.K)
	row := func(label, format string, args ...any) { tasks.Row(&b, label, format, args...) }
	th := func(n levels.U128) string { return tasks.Digits(n.String()) }
	row("tree nodes", "%s", th(r.Nodes))
	row("complete games", "%s", th(r.Games))
	row("  X wins", "%s", th(r.XWins))
	row("  O wins", "%s", th(r.OWins))
	row("  draws", "%s", th(r.Draws))
	row("positions", "%s (%s up to symmetry)", tasks.Thousands(r.Positions), tasks.Thousands(r.CanonicalPositions))
	row("terminal positions", "%s: X wins %s, O wins %s, draws %s", tasks.Thousands(r.TerminalPositions),
		tasks.Thousands(r.TerminalByResult.XWins), tasks.Thousands(r.TerminalByResult.OWins), tasks.Thousands(r.TerminalByResult.Draws))
	row("  up to symmetry", "%s: X wins %s, O wins %s, draws %s", tasks.Thousands(r.CanonicalTerminalPositions),
		tasks.Thousands(r.CanonicalTerminalByResult.XWins), tasks.Thousands(r.CanonicalTerminalByResult.OWins), tasks.Thousands(r.CanonicalTerminalByResult.Draws))
	row("hash tables", "%s at most", FormatBytes(int64(r.TableBytes)))
	return b.String()
}

// Size implements tasks.Sizer: one task.
func (Forward) Size(raw json.RawMessage) (tasks.Size, error) {
	var p ForwardParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return tasks.Size{}, tasks.Invalid("mnk.forward parameters: %v", err)
	}
	if err := p.validate(); err != nil {
		return tasks.Size{}, err
	}
	return tasks.Size{Tasks: 1, By: fmt.Sprintf("--board %dx%d", p.Rows, p.Cols)}, nil
}
