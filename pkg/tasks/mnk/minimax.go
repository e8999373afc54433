package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/minimax"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// "mnk.minimax" runs the textbook minimax (minimax.Textbook) as one task:
// its call count is the point, and splitting would change it.

func init() { tasks.Register(Minimax{}) }

// MaxMinimaxEmpty bounds the empty cells of a textbook minimax: it visits
// every game, 3x4 from the start (12 cells) takes 140 million calls with
// k=3 and 1.17 billion with k=4, and each further cell multiplies that by
// about ten.
const MaxMinimaxEmpty = 12

// MinimaxParams are the parameters of an "mnk.minimax" job.
type MinimaxParams struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	K    int `json:"k"`
	// Moves or Position give the position to search (see SearchParams).
	Moves      string `json:"moves,omitempty"`
	Position   string `json:"position,omitempty"`
	Cutoff     bool   `json:"cutoff,omitempty"`
	DepthScore bool   `json:"depth_score,omitempty"`
}

// Spec checks the parameters of a new job, as analyze mnk minimax submits
// it, and returns the job's spec.
func (p MinimaxParams) Spec() (tasks.Spec, error) {
	if _, _, err := p.Validate(); err != nil {
		return tasks.Spec{}, err
	}
	return spec(Minimax{}.Name(), p)
}

// Validate checks the parameters and returns the game and the position.
func (p MinimaxParams) Validate() (*mnk.Game, mnk.Position, error) {
	g, err := NewGame(p.Rows, p.Cols, p.K)
	if err != nil {
		return nil, mnk.Position{}, err
	}
	pos, err := startPosition[mnk.Position](g, p.Moves, p.Position)
	if err != nil {
		return nil, pos, err
	}
	if n := bits.OnesCount64(g.Empty(pos)); n > MaxMinimaxEmpty {
		return nil, pos, tasks.Invalid("%d empty cells: the textbook minimax visits every game, so it is limited to %d empty cells (3x4 from the start, or play some moves first with --moves)", n, MaxMinimaxEmpty)
	}
	return g, pos, nil
}

// Minimax is the "mnk.minimax" kind.
type Minimax struct{}

// Name implements tasks.Kind.
func (Minimax) Name() string { return "mnk.minimax" }

// Version implements tasks.Kind.
func (Minimax) Version() int { return 1 }

// Plan implements tasks.Kind.
func (Minimax) Plan(_ context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	return planOne(raw, "mnk.minimax", "minimax", MinimaxParams.Validate, nil, func() tasks.Report { return &MinimaxReport{} })
}

// MinimaxReport is the report of an "mnk.minimax" job. The score is for the
// side to move; the move is [row, col].
type MinimaxReport struct {
	positionHead
	Cutoff     bool   `json:"cutoff"`
	DepthScore bool   `json:"depth_score"`
	Calls      uint64 `json:"calls"`
	BestMove   [2]int `json:"best_move"`
	Score      int    `json:"score"`
	// SearchSeconds is the time of the minimax itself.
	SearchSeconds float64 `json:"search_seconds"`
}

// Text implements tasks.Report.
func (r *MinimaxReport) Text() string {
	var b strings.Builder
	if r.Board == "" {
		return failedText("minimax")
	}
	variant := "textbook minimax"
	if r.Cutoff {
		variant += ", cutoff"
	}
	if r.DepthScore {
		variant += ", depth scoring"
	}
	fmt.Fprintf(&b, "m,n,k-game %d,%d,%d: %s of %s, %s to move\n", r.Rows, r.Cols, r.K, variant, r.Position, r.ToMove)
	row := func(label, format string, args ...any) { tasks.Row(&b, label, format, args...) }
	row("calls", "%s", tasks.Thousands(r.Calls))
	row("best move", "%d,%d", r.BestMove[0], r.BestMove[1])
	row("score", "%d", r.Score)
	row("minimax time", "%.3f s", r.SearchSeconds)
	return b.String()
}

// NewRunner implements tasks.Kind.
func (Minimax) NewRunner(tasks.Env) tasks.Runner { return minimaxRunner{} }

type minimaxRunner struct{}

func (minimaxRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var p MinimaxParams
	if err := json.Unmarshal(payload, &p); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.minimax task: %w", err))
	}
	g, pos, err := p.Validate()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	start := time.Now()
	res, err := minimax.Textbook(ctx, g, pos, minimax.Options{Cutoff: p.Cutoff, DepthScore: p.DepthScore})
	if err != nil {
		return tasks.Output{}, err
	}
	rep := MinimaxReport{
		positionHead: headOf(g, pos), Cutoff: p.Cutoff, DepthScore: p.DepthScore,
		Calls: res.Calls, BestMove: cellRC(res.Move), Score: res.Score, SearchSeconds: time.Since(start).Seconds(),
	}
	data, err := json.Marshal(rep)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}
