package player

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
)

func TestParseNineboard(t *testing.T) {
	good := map[string]Spec{
		"random":           {Kind: Random},
		"engine:depth=1":   {Kind: Engine, Depth: 1},
		"engine:depth=30":  {Kind: Engine, Depth: 30},
		"engine:time=50ms": {Kind: Engine, Time: 50 * time.Millisecond},
		"engine:time=1.5s": {Kind: Engine, Time: 1500 * time.Millisecond},
	}
	for s, want := range good {
		got, err := ParseNineboard(s)
		if err != nil || got != want {
			t.Errorf("ParseNineboard(%q) = %+v, %v; want %+v", s, got, err, want)
		}
		if again, err := ParseNineboard(got.String()); err != nil || again != got {
			t.Errorf("ParseNineboard(%q.String() = %q) = %+v, %v", s, got.String(), again, err)
		}
	}
	for _, s := range []string{"", "Random", "engine", "engine:", "engine:depth=0", "engine:depth=31", "engine:depth=x",
		"engine:time=0s", "engine:time=2m", "engine:time=fast", "engine:nodes=5", "human"} {
		if p, err := ParseNineboard(s); err == nil {
			t.Errorf("ParseNineboard(%q) = %+v, want an error", s, p)
		}
	}
}

// Each game's grammar names its own players when it refuses one; the
// engine's limits are the same in both.
func TestParseMessages(t *testing.T) {
	for _, c := range []struct {
		parse func(string) (Spec, error)
		s     string
		want  string
	}{
		{Parse, "nobody", `player "nobody": want human, random, perfect, engine:depth=D or engine:time=T`},
		{Parse, "engine:depth=31", `player "engine:depth=31": depth must be a whole number from 1 to 30`},
		{Parse, "engine:time=2h", `player "engine:time=2h": time must be a duration from 1ms to 1m0s, e.g. 50ms`},
		{ParseNineboard, "perfect", `player "perfect": want random, engine:depth=D or engine:time=T`},
		{ParseNineboard, "human", `player "human": want random, engine:depth=D or engine:time=T`},
		{ParseNineboard, "engine:depth=0", `player "engine:depth=0": depth must be a whole number from 1 to 30`},
	} {
		if _, err := c.parse(c.s); err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v, want %q", c.s, err, c.want)
		}
	}
	for _, s := range []string{"human", "random", "perfect", "engine:depth=4", "engine:time=20ms"} {
		if sp, err := Parse(s); err != nil || sp.String() != s {
			t.Errorf("Parse(%q) = %v, %v; want it back", s, sp, err)
		}
	}
}

func TestNewNineboard(t *testing.T) {
	for _, s := range []Spec{{Kind: Human}, {Kind: Perfect}, {Kind: Engine}} {
		if _, err := NewNineboard(s); err == nil {
			t.Errorf("NewNineboard(%v): no error, want one", s)
		}
	}
	p, err := NewNineboard(Spec{Kind: Engine, Depth: 3})
	if err != nil || p.Spec() != (Spec{Kind: Engine, Depth: 3}) {
		t.Fatalf("engine:depth=3: %v, %v", p, err)
	}
}

// The random player draws b.RandomMove from its generator; the engine at
// a depth plays the same moves in the same games once cleared, whatever
// it played before; a search cut short is no move.
func TestNineboardMoves(t *testing.T) {
	ctx := context.Background()
	random, _ := NewNineboard(Spec{Kind: Random})
	b := nineboard.NewBoard(nineboard.Ultimate)
	info, err := random.Move(ctx, b, rand.New(rand.NewPCG(1, 2)))
	if want := b.RandomMove(rand.New(rand.NewPCG(1, 2))); err != nil || info.Move != want || info.Nodes != 0 {
		t.Errorf("random: %+v, %v; want %v and no search", info, err, want)
	}

	engine, _ := NewNineboard(Spec{Kind: Engine, Depth: 4})
	game := func() string {
		engine.Clear()
		rng := rand.New(rand.NewPCG(7, 0))
		b := nineboard.NewBoard(nineboard.FirstTriple)
		var moves []string
		for b.Result() == nineboard.Ongoing {
			p := random
			if b.Side() == nineboard.X {
				p = engine
			}
			info, err := p.Move(ctx, b, rng)
			if err != nil || !b.Legal(info.Move) {
				t.Fatalf("%v: %v, %v: want a legal move", p.Spec(), info.Move, err)
			}
			if p == engine && (info.Depth != 4 && !info.Forced() || info.Nodes == 0) {
				t.Fatalf("engine:depth=4: depth %d, %d nodes", info.Depth, info.Nodes)
			}
			b.Make(info.Move)
			moves = append(moves, info.Move.String())
		}
		return strings.Join(moves, " ")
	}
	first := game()
	if again := game(); again != first {
		t.Errorf("the same game after Clear: %s, then %s", first, again)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if info, err := engine.Move(cancelled, nineboard.NewBoard(nineboard.Ultimate), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled search: %+v, %v; want context.Canceled", info, err)
	}
}
