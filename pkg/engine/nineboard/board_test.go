package nineboard

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
)

// perftKnown are the issue's figures (depths 1-6), and depth 7 established
// by this engine and the plain reference below (refPerft) agreeing in a
// one-off run (the reference takes 15 s there; the tests run it to depth 6).
// First-triple depth 7 is also checked by TestVariantsAgreeWhileNoBoardCloses.
var perftKnown = []struct {
	depth            int
	firstTriple, ult uint64
}{
	{1, 81, 81},
	{2, 720, 720},
	{3, 6336, 6336},
	{4, 55080, 55080},
	{5, 473256, 473256},
	{6, 4015008, 4020960},
	{7, 33658704, 33782544},
}

func TestPerftKnown(t *testing.T) {
	for _, k := range perftKnown {
		if k.depth > 6 && testing.Short() {
			continue // depth 6 runs the same code
		}
		for _, c := range []struct {
			v    Variant
			want uint64
		}{{FirstTriple, k.firstTriple}, {Ultimate, k.ult}} {
			if got := NewBoard(c.v).Perft(k.depth); got != c.want {
				t.Errorf("%s perft(%d) = %d, want %d", c.v, k.depth, got, c.want)
			}
		}
	}
}

// ref is a plain implementation of the rules, written from the issue's text
// without bitboards, tables or make/unmake: the game is copied at each move.
type ref struct {
	ultimate bool
	cell     [9][9]byte // 0 empty, 'x', 'o'
	owner    [9]byte    // Ultimate: winner of each board
	next     int        // -1: any open board
	turn     byte
	over     bool
}

var refLines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func refThree(g [9]byte, p byte) bool {
	for _, l := range refLines {
		if g[l[0]] == p && g[l[1]] == p && g[l[2]] == p {
			return true
		}
	}
	return false
}

func refFull(g [9]byte) bool {
	for _, c := range g {
		if c == 0 {
			return false
		}
	}
	return true
}

func (r *ref) open(b int) bool {
	if !r.ultimate {
		return true
	}
	return r.owner[b] == 0 && !refFull(r.cell[b])
}

func (r *ref) moves() [][2]int {
	if r.over {
		return nil
	}
	var ms [][2]int
	for b := range 9 {
		if r.next >= 0 && b != r.next || !r.open(b) {
			continue
		}
		for c := range 9 {
			if r.cell[b][c] == 0 {
				ms = append(ms, [2]int{b, c})
			}
		}
	}
	return ms
}

func (r ref) play(b, c int) ref {
	p := r.turn
	r.cell[b][c] = p
	r.turn = 'x' + 'o' - p
	r.next = c
	if !r.ultimate {
		if refThree(r.cell[b], p) || refFull(r.cell[c]) {
			r.over = true
		}
		return r
	}
	if refThree(r.cell[b], p) {
		r.owner[b] = p
		if refThree(r.owner, p) {
			r.over = true
			return r
		}
	}
	if !r.open(c) {
		r.next = -1
	}
	if len(r.moves()) == 0 {
		r.over = true
	}
	return r
}

func refPerft(r ref, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	var n uint64
	for _, m := range r.moves() {
		n += refPerft(r.play(m[0], m[1]), depth-1)
	}
	return n
}

// The engine against the plain reference: perft from the start, and from
// positions deep in random games where boards are won, full and closed.
func TestPerftAgainstReference(t *testing.T) {
	race.SkipSerial(t)
	depth := 6
	if testing.Short() {
		depth = 5
	}
	for _, v := range []Variant{FirstTriple, Ultimate} {
		r := ref{ultimate: v == Ultimate, next: -1, turn: 'x'}
		if got, want := NewBoard(v).Perft(depth), refPerft(r, depth); got != want {
			t.Errorf("%s perft(%d): engine %d, reference %d", v, depth, got, want)
		}
		rng := rand.New(rand.NewPCG(5, uint64(v)))
		for game := range 40 {
			b, r := NewBoard(v), ref{ultimate: v == Ultimate, next: -1, turn: 'x'}
			for b.Result() == Ongoing {
				if got, want := b.Perft(3), refPerft(r, 3); got != want {
					t.Fatalf("%s game %d ply %d %s: perft(3) engine %d, reference %d", v, game, b.Ply(), b, got, want)
				}
				ms := r.moves()
				if len(ms) != b.CountMoves() {
					t.Fatalf("%s %s: %d moves, reference %d", v, b, b.CountMoves(), len(ms))
				}
				m := ms[rng.IntN(len(ms))]
				b.Make(NewMove(m[0], m[1]))
				r = r.play(m[0], m[1])
				if (b.Result() != Ongoing) != r.over {
					t.Fatalf("%s %s: result %s, reference over=%v", v, b, b.Result(), r.over)
				}
			}
		}
	}
}

// The variants must agree while no board is won or full: the same moves,
// and the same sequences. A triple ends a first-triple game exactly when it
// wins a board in Ultimate. Walks both to depth 7 in lockstep and counts,
// per ply, the sequences that stay clean and those whose first triple falls
// there.
func TestVariantsAgreeWhileNoBoardCloses(t *testing.T) {
	race.SkipSerial(t)
	depth := 7
	if testing.Short() {
		depth = 6
	}
	ft, ult := NewBoard(FirstTriple), NewBoard(Ultimate)
	clean := make([]uint64, depth+1)
	triples := make([]uint64, depth+1)
	var bufs [2][12][81]Move
	var walk func(d int)
	walk = func(d int) {
		clean[d]++
		if d == depth {
			return
		}
		a, b := ft.Moves(bufs[0][d][:0]), ult.Moves(bufs[1][d][:0])
		if !slices.Equal(a, b) {
			t.Fatalf("%s: moves %v, ultimate %v", ft, a, b)
		}
		for _, m := range a {
			ft.Make(m)
			ult.Make(m)
			switch {
			case ult.won != [2]uint16{}:
				if ft.Result() != XWin+Result(ult.side^1) {
					t.Fatalf("%s: ultimate board won, first-triple result %s", ft, ft.Result())
				}
				triples[d+1]++
			case ult.full != 0 || ft.full != 0:
				t.Fatalf("%s: a board is full at ply %d", ft, d+1)
			case ft.Result() != Ongoing:
				t.Fatalf("%s: first-triple over (%s) without a triple", ft, ft.Result())
			default:
				walk(d + 1)
			}
			ft.Unmake()
			ult.Unmake()
		}
	}
	walk(0)
	// Through ply 5 nothing can close, so the clean counts are perft; the
	// first triples are possible from ply 5 (the issue's 336).
	for d := 1; d <= 4; d++ {
		if clean[d] != perftKnown[d-1].firstTriple || triples[d] != 0 {
			t.Errorf("ply %d: %d clean, %d triples; want %d, 0", d, clean[d], triples[d], perftKnown[d-1].firstTriple)
		}
	}
	if triples[5] != 336 {
		t.Errorf("first triples at ply 5: %d, want 336", triples[5])
	}
	// first-triple perft(d) counts the moves of the positions still open at
	// ply d-1: exactly the clean ones, until a board can fill (ply 9), and
	// each move either keeps the sequence clean or makes the first triple.
	for d := 1; d <= depth && d <= len(perftKnown); d++ {
		if got, want := clean[d]+triples[d], perftKnown[d-1].firstTriple; got != want {
			t.Errorf("ply %d: clean %d + triples %d = %d, want first-triple perft %d", d, clean[d], triples[d], got, want)
		}
	}
	t.Logf("clean sequences by ply %v, first triples %v", clean, triples)
}

// Make then Unmake restores every field; the incremental hash equals the
// hash of the position read back from its text.
func TestMakeUnmakeAndParse(t *testing.T) {
	race.SkipSerial(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var buf [81]Move
	for _, v := range []Variant{FirstTriple, Ultimate} {
		for range 200 {
			b := NewBoard(v)
			for b.Result() == Ongoing {
				if b.Ply() > 0 {
					p, err := Parse(v, b.String())
					if err != nil {
						t.Fatalf("Parse(%q): %v", b.String(), err)
					}
					if p.Hash() != b.Hash() || p.String() != b.String() || p.CountMoves() != b.CountMoves() {
						t.Fatalf("Parse(%q) = %q hash %x moves %d; want hash %x moves %d", b.String(), p.String(), p.Hash(), p.CountMoves(), b.Hash(), b.CountMoves())
					}
				}
				moves := b.Moves(buf[:0])
				for _, m := range moves {
					if !b.Legal(m) {
						t.Fatalf("%s: generated %s is not legal", b, m)
					}
					before := *b
					b.Make(m)
					b.Unmake()
					before.hist, b.hist = [MaxPly]undo{}, [MaxPly]undo{}
					if *b != before {
						t.Fatalf("%s: make/unmake %s changed the board", b, m)
					}
				}
				b.Make(moves[rng.IntN(len(moves))])
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	empty := "........./........./........./........./........./........./........./........./........."
	for _, s := range []string{
		"", "x 5", empty + " x", empty + " z 5", empty + " o 5", empty + " x 0", empty + " x 10",
		"xxx....../........./........./........./........./........./........./........./ooo...... x 5",
		empty[:10] + "?" + empty[11:] + " x 5",
	} {
		if b, err := Parse(FirstTriple, s); err == nil {
			t.Errorf("Parse(%q) = %s, want an error", s, b)
		}
	}
	if _, err := Parse(Ultimate, empty+" x any"); err != nil {
		t.Errorf("Parse(empty): %v", err)
	}
}

// Perft and search allocate nothing per node.
func TestZeroAllocs(t *testing.T) {
	b := NewBoard(FirstTriple)
	if a := testing.AllocsPerRun(3, func() { b.Perft(4) }); a != 0 {
		t.Errorf("Perft(4): %v allocations per run, want 0", a)
	}
	s := NewSearcher(16)
	u := NewBoard(Ultimate)
	u.Make(NewMove(4, 4))
	for _, bd := range []*Board{b, u} {
		if a := testing.AllocsPerRun(3, func() { s.Search(context.Background(), bd, Limits{Depth: 5}) }); a != 0 {
			t.Errorf("%s Search depth 5: %v allocations per run, want 0", bd.Variant(), a)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("x........./........./........./........./........./........./........./......... o 1")
	f.Add(".........x/o......../........./........./........./........./........./......... x 1")
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []Variant{FirstTriple, Ultimate} {
			b, err := Parse(v, s)
			if err != nil {
				continue
			}
			c, err := Parse(v, b.String())
			if err != nil || c.String() != b.String() || c.Hash() != b.Hash() {
				t.Fatalf("%q -> %q -> %v, %v", s, b.String(), c, err)
			}
		}
	})
}

func ExampleBoard_Perft() {
	fmt.Println(NewBoard(FirstTriple).Perft(6), NewBoard(Ultimate).Perft(6))
	// Output: 4015008 4020960
}

// Won is the set of boards in which a side has three in a row, in
// Ultimate; in FirstTriple the first such board ends the game and Won is 0.
func TestWon(t *testing.T) {
	threeInARow := func(cells uint16) bool {
		for _, l := range []uint16{0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124} {
			if cells&l == l {
				return true
			}
		}
		return false
	}
	for _, v := range []Variant{FirstTriple, Ultimate} {
		for seed := range uint64(50) {
			rng := rand.New(rand.NewPCG(seed, 2))
			b := NewBoard(v)
			for b.Result() == Ongoing {
				b.Make(b.RandomMove(rng))
				for _, p := range []Player{X, O} {
					var want uint16
					for bd := range 9 {
						if v == Ultimate && threeInARow(b.Cells(p, bd)) {
							want |= 1 << bd
						}
					}
					if got := b.Won(p); got != want {
						t.Fatalf("%v seed %d ply %d: Won(%v) = %09b, want %09b", v, seed, b.Ply(), p, got, want)
					}
				}
			}
		}
	}
}
