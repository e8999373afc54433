package player

import (
	"context"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
)

// refGame is a game record replayed on a plain board: a slice of cells
// holding 0 (empty), 1 (X) or 2 (O), with a win test that scans every run
// of k cells in the four directions. It shares nothing with mnk but the
// cell numbering, which the players need.
type refGame struct {
	rows, cols, k int
	start         mnk.Position
}

// board replays rec from the start.
func (r refGame) board(rec []int) []int8 {
	b := make([]int8, 64)
	n := 0
	for c := range 64 {
		switch {
		case r.start.X>>c&1 != 0:
			b[c] = 1
			n++
		case r.start.O>>c&1 != 0:
			b[c] = 2
			n++
		}
	}
	for i, c := range rec {
		b[c] = int8(1 + (n+i)%2)
	}
	return b
}

// winner returns 1 or 2 if that side has k in a row, else 0.
func (r refGame) winner(b []int8) int8 {
	for row := range r.rows {
		for col := range r.cols {
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				side, run := b[mnk.Cell(row, col)], 0
				for i := 0; i < r.k && side != 0; i++ {
					rr, cc := row+i*d[0], col+i*d[1]
					if rr < 0 || rr >= r.rows || cc < 0 || cc >= r.cols || b[mnk.Cell(rr, cc)] != side {
						break
					}
					run++
				}
				if run == r.k {
					return side
				}
			}
		}
	}
	return 0
}

// position is the board as an mnk.Position, for the positional players.
func position(b []int8) mnk.Position {
	var p mnk.Position
	for c, s := range b {
		switch s {
		case 1:
			p.X |= 1 << c
		case 2:
			p.O |= 1 << c
		}
	}
	return p
}

// refOdds enumerates every game record from the start, with no memo: at a
// random player's turn every empty cell, row-major, each with its share
// of the probability as a big.Rat; at a positional player's turn its move.
// It returns the probabilities of an X win, an O win and a draw.
func refOdds(t *testing.T, r refGame, players [2]Player) [3]*big.Rat {
	t.Helper()
	odds := [3]*big.Rat{new(big.Rat), new(big.Rat), new(big.Rat)}
	startPly := bits.OnesCount64(r.start.X | r.start.O)
	var walk func(rec []int, prob *big.Rat)
	walk = func(rec []int, prob *big.Rat) {
		b := r.board(rec)
		var empty []int
		for row := range r.rows {
			for col := range r.cols {
				if b[mnk.Cell(row, col)] == 0 {
					empty = append(empty, mnk.Cell(row, col))
				}
			}
		}
		if w := r.winner(b); w != 0 {
			odds[w-1].Add(odds[w-1], prob)
			return
		}
		if len(empty) == 0 {
			odds[2].Add(odds[2], prob)
			return
		}
		pl := players[(startPly+len(rec))%2]
		if pl == nil {
			share := new(big.Rat).Mul(prob, big.NewRat(1, int64(len(empty))))
			for _, c := range empty {
				walk(append(rec, c), share)
			}
			return
		}
		ch, err := pl.Move(context.Background(), position(b), nil)
		if err != nil {
			t.Fatal(err)
		}
		walk(append(rec, ch.Cell), prob)
	}
	walk(nil, big.NewRat(1, 1))
	return odds
}

// players returns the players of the specs, nil for random.
func players(t *testing.T, g *mnk.Game, specs ...string) ([2]Player, [2]Spec) {
	t.Helper()
	var pl [2]Player
	var sp [2]Spec
	for i, s := range specs {
		spec, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		sp[i] = spec
		if spec.Kind != Random {
			if pl[i], err = New(spec, g); err != nil {
				t.Fatal(err)
			}
		}
	}
	return pl, sp
}

// checkOdds compares Exact with refOdds.
func checkOdds(t *testing.T, g *mnk.Game, start mnk.Position, x, o string) {
	t.Helper()
	pl, sp := players(t, g, x, o)
	got, err := Exact(context.Background(), g, start, sp[0], sp[1])
	if err != nil {
		t.Fatalf("%s %s, %s against %s: %v", g.Spec(), g.String(start), x, o, err)
	}
	want := refOdds(t, refGame{g.Rows, g.Cols, g.K, start}, pl)
	if got.XWin+got.OWin+got.Draw != got.Total {
		t.Errorf("%s %s, %s against %s: %d+%d+%d over %d, want them to sum to the total", g.Spec(), g.String(start), x, o, got.XWin, got.OWin, got.Draw, got.Total)
	}
	for i, r := range []mnk.Result{mnk.XWin, mnk.OWin, mnk.Draw} {
		if got.Rat(r).Cmp(want[i]) != 0 {
			t.Errorf("%s %s, %s against %s: %v %s, want %s", g.Spec(), g.String(start), x, o, r, got.Rat(r), want[i])
		}
		if f, _ := want[i].Float64(); got.Float(r) != f {
			t.Errorf("%s %s, %s against %s: %v %v as a float, want %v", g.Spec(), g.String(start), x, o, r, got.Float(r), f)
		}
	}
}

// TestExactAgainstEnumeration compares Exact with the enumeration of every
// game record, for pairs of random and positional players, on 3x3 and
// smaller boards from the empty board, and from positions of larger ones.
func TestExactAgainstEnumeration(t *testing.T) {
	pairs := [][2]string{
		{"random", "random"}, {"perfect", "random"}, {"random", "perfect"},
		{"engine:depth=2", "random"}, {"random", "engine:depth=2"},
		{"perfect", "perfect"}, {"engine:depth=1", "perfect"}, {"engine:depth=3", "engine:depth=1"},
	}
	for _, b := range [][3]int{{3, 3, 3}, {2, 3, 2}, {3, 2, 2}, {2, 4, 3}, {1, 5, 2}, {2, 2, 2}, {1, 1, 1}, {3, 3, 2}} {
		g := mnk.MustNew(b[0], b[1], b[2])
		for _, pr := range pairs {
			checkOdds(t, g, mnk.Position{}, pr[0], pr[1])
		}
	}
	// Positions with 7 or 8 empty cells of larger boards, with either
	// side to move, and positions where the game is over.
	rng := rand.New(rand.NewPCG(1, 6))
	for _, b := range [][3]int{{4, 4, 4}, {4, 4, 3}, {3, 4, 3}, {3, 5, 3}, {2, 8, 4}} {
		g := mnk.MustNew(b[0], b[1], b[2])
		for i := range 4 {
			p := randomPosition(g, rng, g.Cells()-8+i%2)
			for _, pr := range pairs[:5] {
				checkOdds(t, g, p, pr[0], pr[1])
			}
		}
	}
	g := mnk.MustNew(3, 3, 3)
	for _, moves := range []string{"0,0 1,0 0,1 1,1 0,2", "0,0 1,1 2,2 0,2 2,0 1,0 1,2 2,1 0,1"} {
		p, _ := g.ParseMoves(moves)
		checkOdds(t, g, p, "random", "perfect")
	}
}

// TestExactRandomAgainstCounter computes random against random a third
// way, from the counts of complete games by length: each game of L plies
// from the empty board of C cells has probability (C-L)!/C!.
func TestExactRandomAgainstCounter(t *testing.T) {
	boards := [][3]int{{3, 3, 3}, {3, 3, 2}, {2, 4, 3}, {3, 4, 3}, {4, 3, 4}, {4, 4, 4}}
	for _, b := range boards {
		g := mnk.MustNew(b[0], b[1], b[2])
		if g.Cells() > 12 && testing.Short() {
			continue // 3x3 and 3x4 cover the same code
		}
		st := count.New(g).Count(mnk.Position{})
		c := g.Cells()
		fact := func(n int) *big.Int { return new(big.Int).MulRange(1, int64(max(n, 1))) }
		var x, o big.Int
		for l := 1; l <= c; l++ {
			w := new(big.Int).Mul(new(big.Int).SetUint64(st.Wins[l]), fact(c-l))
			if l%2 == 1 {
				x.Add(&x, w)
			} else {
				o.Add(&o, w)
			}
		}
		want := [3]*big.Rat{new(big.Rat).SetFrac(&x, fact(c)), new(big.Rat).SetFrac(&o, fact(c)),
			new(big.Rat).SetFrac(new(big.Int).SetUint64(st.Draws), fact(c))}
		got, err := Exact(context.Background(), g, mnk.Position{}, Spec{Kind: Random}, Spec{Kind: Random})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range []mnk.Result{mnk.XWin, mnk.OWin, mnk.Draw} {
			if got.Rat(r).Cmp(want[i]) != 0 {
				t.Errorf("%s random against random: %v %s, want %s", g.Spec(), r, got.Rat(r), want[i])
			}
		}
	}
}

// TestExactKnown: the odds that docs/games.md states ("Perfect against
// random"), which TestExactAgainstEnumeration and
// TestExactRandomAgainstCounter establish on 3x3 by other means.
func TestExactKnown(t *testing.T) {
	cases := []struct {
		board, x, o string
		xWin, oWin  string // draws are the rest
		positions   int    // memoised: the cost of the enumeration
	}{
		{"3x3", "random", "random", "737/1260", "121/420", 627},
		{"3x3", "perfect", "random", "191/192", "0", 99},
		{"3x3", "random", "perfect", "0", "254/315", 594},
		{"4x4", "perfect", "random", "1678681/2027025", "0", 16719},
		{"4x4", "random", "perfect", "0", "3329593/5160960", 44241},
		{"4x4", "random", "random", "23768/75075", "60191/225225", 1135214},
	}
	for _, c := range cases {
		if c.board == "4x4" && c.x == "random" && c.o == "random" && testing.Short() {
			continue // a second and a half; 3x3 covers the same code
		}
		var g *mnk.Game
		if c.board == "3x3" {
			g = mnk.MustNew(3, 3, 3)
		} else {
			g = mnk.MustNew(4, 4, 4)
		}
		x, _ := Parse(c.x)
		o, _ := Parse(c.o)
		got, err := Exact(context.Background(), g, mnk.Position{}, x, o)
		if err != nil {
			t.Fatal(err)
		}
		xw, _ := new(big.Rat).SetString(c.xWin)
		ow, _ := new(big.Rat).SetString(c.oWin)
		if got.Rat(mnk.XWin).Cmp(xw) != 0 || got.Rat(mnk.OWin).Cmp(ow) != 0 || got.Positions != c.positions {
			t.Errorf("%s %s against %s: X %s, O %s, %d positions; want %s, %s, %d", c.board, c.x, c.o,
				got.Rat(mnk.XWin), got.Rat(mnk.OWin), got.Positions, c.xWin, c.oWin, c.positions)
		}
	}
}

func TestExactErrors(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	ctx := context.Background()
	cases := []struct {
		g    *mnk.Game
		x, o Spec
		p    mnk.Position
		want string
	}{
		{mnk.MustNew(5, 4, 4), Spec{Kind: Random}, Spec{Kind: Random}, mnk.Position{}, "up to 16 cells"},
		{g, Spec{Kind: Engine, Time: 5e6}, Spec{Kind: Random}, mnk.Position{}, "engine:time=5ms does not play by the position"},
		{g, Spec{Kind: Random}, Spec{Kind: Human}, mnk.Position{}, "human does not play by the position"},
		{g, Spec{Kind: Random}, Spec{Kind: Random}, mnk.Position{X: 3}, "invalid position"},
	}
	for _, c := range cases {
		if _, err := Exact(ctx, c.g, c.p, c.x, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, %s against %s: %v, want an error saying %q", c.g.Spec(), c.x, c.o, err, c.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := Exact(cancelled, mnk.MustNew(4, 4, 4), mnk.Position{}, Spec{Kind: Random}, Spec{Kind: Random})
	if err != context.Canceled {
		t.Errorf("a cancelled context: %v, want %v", err, context.Canceled)
	}
}

// BenchmarkExactRandom444 is random against random on 4x4: every position
// up to symmetry. Run it with -benchtime=1x -benchmem.
func BenchmarkExactRandom444(b *testing.B) {
	benchExact(b, mnk.MustNew(4, 4, 4), Spec{Kind: Random}, Spec{Kind: Random})
}

// BenchmarkExactPerfect444 is the perfect player as X against random on
// 4x4, with the perfect player's oracle already complete (its own cost is
// mnk's BenchmarkOracle444).
func BenchmarkExactPerfect444(b *testing.B) {
	g := mnk.MustNew(4, 4, 4)
	o, err := Oracle(g)
	if err != nil {
		b.Fatal(err)
	}
	o.Eval(context.Background(), mnk.Position{})
	benchExact(b, g, Spec{Kind: Perfect}, Spec{Kind: Random})
}

func benchExact(b *testing.B, g *mnk.Game, x, o Spec) {
	b.ReportAllocs()
	var odds Odds
	for b.Loop() {
		var err error
		if odds, err = Exact(context.Background(), g, mnk.Position{}, x, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(odds.Positions), "positions")
	b.ReportMetric(float64(odds.Positions)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}
