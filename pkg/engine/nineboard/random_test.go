package nineboard

import (
	"math/rand/v2"
	"testing"
)

// The random moves draw exactly what the match's players drew before they
// were shared: one IntN over the legal moves, and board then cell for the
// opening. Games played with a seed stay the same games.
func TestRandomMovesDrawAsBefore(t *testing.T) {
	for _, v := range []Variant{FirstTriple, Ultimate} {
		for seed := range uint64(20) {
			got, want := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
			b := NewBoard(v)
			if m, w := RandomOpening(got), NewMove(want.IntN(9), want.IntN(9)); m != w {
				t.Fatalf("%v seed %d: opening %v, want %v", v, seed, m, w)
			}
			var buf [81]Move
			for b.Result() == Ongoing {
				ms := b.Moves(buf[:0])
				m, w := b.RandomMove(got), ms[want.IntN(len(ms))]
				if m != w {
					t.Fatalf("%v seed %d ply %d: %v, want %v", v, seed, b.Ply(), m, w)
				}
				if !b.Legal(m) {
					t.Fatalf("%v seed %d ply %d: %v is illegal in %s", v, seed, b.Ply(), m, b)
				}
				b.Make(m)
			}
			if m := b.RandomMove(got); m != NoMove {
				t.Errorf("%v seed %d: %v in a finished game, want NoMove", v, seed, m)
			}
		}
	}
}
