package player

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/oracle"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
)

// MaxPerfectCells is the largest board the perfect player plays: its
// oracle memoises every position it meets, which boards of up to 16 cells
// (4x4, 3x5, 2x8) keep to tens of megabytes.
const MaxPerfectCells = oracle.MaxCells

// The engine players' tables. The depth player's moves depend on the size
// of its table (which entries survive decides the move ordering, and so
// which of two equally scored moves is found first): it is fixed here, so
// that engine:depth=D plays the same moves in every process.
const (
	depthTableBytes = 4 << 20
	timeTableBytes  = 16 << 20
)

// newEngine returns the perfect and engine players.
func newEngine(s Spec, g *mnk.Game) (Player, error) {
	switch s.Kind {
	case Perfect:
		o, err := Oracle(g)
		if err != nil {
			return nil, err
		}
		return perfectPlayer{o}, nil
	case Engine:
		if s.Depth < 1 && s.Time <= 0 {
			return nil, fmt.Errorf("player %s: want a depth or a time", s)
		}
		if s.Time > 0 {
			return &enginePlayer{s: search.New(g, timeTableBytes), budget: s.Time}, nil
		}
		return &enginePlayer{s: search.New(g, depthTableBytes), depth: s.Depth}, nil
	}
	return nil, fmt.Errorf("player %v: unknown kind", s.Kind)
}

// oracles holds the process's oracles, one per game, shared by its
// perfect players: a simulation's games, and the tasks of a worker, reuse
// what earlier games computed. They live as long as the process (4,4,4's
// takes 16 MB once complete).
var oracles struct {
	sync.Mutex
	m map[[3]int]*oracle.Oracle
}

// Oracle returns the process's oracle of g, which the perfect players of
// g share. Boards of more than MaxPerfectCells cells have none: the error
// says so and wraps mnk.ErrTooBig.
func Oracle(g *mnk.Game) (*oracle.Oracle, error) {
	if g.Cells() > MaxPerfectCells {
		return nil, fmt.Errorf("player perfect: plays boards of up to %d cells, not %dx%d (%d): %w",
			MaxPerfectCells, g.Rows, g.Cols, g.Cells(), mnk.ErrTooBig)
	}
	oracles.Lock()
	defer oracles.Unlock()
	key := [3]int{g.Rows, g.Cols, g.K}
	if o := oracles.m[key]; o != nil {
		return o, nil
	}
	o, err := oracle.New(g)
	if err != nil {
		return nil, err
	}
	if oracles.m == nil {
		oracles.m = make(map[[3]int]*oracle.Oracle)
	}
	oracles.m[key] = o
	return o, nil
}

// perfectPlayer plays the oracle's move: the best value, the quickest win
// or the slowest loss, then the first in row-major order.
type perfectPlayer struct{ o *oracle.Oracle }

func (pp perfectPlayer) Move(ctx context.Context, p mnk.Position, _ *rand.Rand) (Choice, error) {
	m, nodes, err := pp.o.Best(ctx, p)
	if err != nil {
		return Choice{}, fmt.Errorf("player perfect: %w", err)
	}
	return Choice{Cell: m.Cell, Nodes: nodes, Value: m.Value, Plies: m.Plies}, nil
}

// enginePlayer plays the move of a depth-limited search: to a fixed depth,
// with its table cleared before every move so that the move depends on
// the position only, or deepening for a time per move, keeping its table
// from move to move.
type enginePlayer struct {
	s      *search.Searcher
	depth  int
	budget time.Duration
}

func (e *enginePlayer) Move(ctx context.Context, p mnk.Position, _ *rand.Rand) (Choice, error) {
	if e.depth > 0 {
		e.s.Clear()
	}
	r, err := e.s.Search(ctx, p, e.depth, e.budget)
	if err != nil {
		return Choice{}, fmt.Errorf("player engine: %w", err)
	}
	if r.Move < 0 {
		return Choice{}, errors.New("player engine: the game is over")
	}
	return Choice{Cell: r.Move, Nodes: r.Nodes, Depth: r.Depth, Score: r.Score}, nil
}
