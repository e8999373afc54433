// Package player holds the players that a program can be, of m,n,k-games
// and of nine-board tic-tac-toe: random, perfect (m,n,k boards of up to
// MaxPerfectCells cells) and the engine at a depth or a time per move,
// read from the specifications users type ("engine:depth=4"). A human at
// the keyboard is the faces' business (the terminal, the web); the job
// kinds (mnk.simulate, nineboard.match) and the faces ask these players
// for moves.
package player

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// Kind is a kind of player.
type Kind int

// The kinds of player.
const (
	Human Kind = iota
	Random
	Perfect
	Engine
)

// Limits of the engine players' specifications.
const (
	MaxDepth    = 30
	MaxMoveTime = time.Minute
)

// Spec is a player as a user names it: "human", "random", "perfect",
// "engine:depth=D" or "engine:time=T".
type Spec struct {
	Kind  Kind
	Depth int           // Engine: search to this depth, or
	Time  time.Duration // Engine: deepen for this long per move
}

// Parse reads an m,n,k player's specification.
func Parse(s string) (Spec, error) { return parse(s, Human, Random, Perfect) }

// ParseNineboard reads a nine-board player's specification: "random",
// "engine:depth=D" or "engine:time=T". Nine-board has no perfect player,
// and a match has no person: a face that seats one reads "human" itself.
func ParseNineboard(s string) (Spec, error) { return parse(s, Random) }

// parse reads s: one of the kinds named, or an engine.
func parse(s string, named ...Kind) (Spec, error) {
	var names []string
	for _, k := range named {
		name := Spec{Kind: k}.String()
		if s == name {
			return Spec{Kind: k}, nil
		}
		names = append(names, name)
	}
	want := fmt.Errorf("player %q: want %s, engine:depth=D or engine:time=T", s, strings.Join(names, ", "))
	spec, ok := strings.CutPrefix(s, "engine:")
	if !ok {
		return Spec{}, want
	}
	key, val, _ := strings.Cut(spec, "=")
	switch key {
	case "depth":
		d, err := strconv.Atoi(val)
		if err != nil || d < 1 || d > MaxDepth {
			return Spec{}, fmt.Errorf("player %q: depth must be a whole number from 1 to %d", s, MaxDepth)
		}
		return Spec{Kind: Engine, Depth: d}, nil
	case "time":
		t, err := time.ParseDuration(val)
		if err != nil || t < time.Millisecond || t > MaxMoveTime {
			return Spec{}, fmt.Errorf("player %q: time must be a duration from 1ms to %v, e.g. 50ms", s, MaxMoveTime)
		}
		return Spec{Kind: Engine, Time: t}, nil
	}
	return Spec{}, want
}

// String is the specification as Parse reads it.
func (s Spec) String() string {
	switch s.Kind {
	case Human:
		return "human"
	case Random:
		return "random"
	case Perfect:
		return "perfect"
	}
	if s.Time > 0 {
		return "engine:time=" + s.Time.String()
	}
	return "engine:depth=" + strconv.Itoa(s.Depth)
}

// Positional tells whether the player's move depends on the position only:
// the same position, the same move. A random player's depends on its
// random numbers, an engine's under a clock on the machine.
func (s Spec) Positional() bool {
	return s.Kind == Perfect || s.Kind == Engine && s.Time == 0
}

// Choice is a player's move and what choosing it took.
type Choice struct {
	Cell  int    // mnk.Cell(row, col)
	Nodes uint64 // searched (engine, perfect)
	Depth int    // of the engine's last complete iteration
	// Value is the move's value for the player when it is known exactly
	// (perfect), or 0; Plies, the plies to the end with best play, from
	// the position where the move is played, the move included (1: it
	// completes a line or fills the board).
	Value mnk.Value
	Plies int
	Score int // the engine's score for the player
}

// Player chooses moves in positions of one m,n,k-game.
type Player interface {
	// Move chooses a move in p, which must not be over. A random player
	// draws from rng; the others ignore it.
	Move(ctx context.Context, p mnk.Position, rng *rand.Rand) (Choice, error)
}

// New returns a player of the m,n,k-game g. Human is not a program's player: it is
// an error here; so is perfect on a board of more than MaxPerfectCells
// cells. A player is for one goroutine at a time (the engine players own
// a search and its table); the perfect players of a game share the
// process's oracle of it (see Oracle), which is safe for concurrent use.
func New(s Spec, g *mnk.Game) (Player, error) {
	switch s.Kind {
	case Random:
		return randomPlayer{g}, nil
	case Human:
		return nil, fmt.Errorf("player human: only a terminal plays a human")
	}
	return newEngine(s, g)
}

// randomPlayer chooses uniformly among the empty cells.
type randomPlayer struct{ g *mnk.Game }

func (r randomPlayer) Move(_ context.Context, p mnk.Position, rng *rand.Rand) (Choice, error) {
	return Choice{Cell: NthEmpty(r.g, p, rng.IntN(EmptyCount(r.g, p)))}, nil
}

// EmptyCount is the number of empty cells of p.
func EmptyCount(g *mnk.Game, p mnk.Position) int { return bits.OnesCount64(g.Empty(p)) }

// NthEmpty is the i-th empty cell of p in row-major order, from 0.
func NthEmpty(g *mnk.Game, p mnk.Position, i int) int {
	e := g.Empty(p)
	for range i {
		e &= e - 1
	}
	return bits.TrailingZeros64(e)
}
