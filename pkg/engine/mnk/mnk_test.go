package mnk_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		rows, cols, k int
		err           error
		msg           string
	}{
		{3, 3, 3, nil, ""},
		{1, 1, 1, nil, ""},
		{8, 8, 8, nil, ""},
		{2, 7, 7, nil, ""},
		{3, 3, 5, mnk.ErrK, "k 5 is out of range for a 3x3 board: want 1 <= k <= 3"},
		{3, 3, 0, mnk.ErrK, "k 0 is out of range"},
		{2, 7, 8, mnk.ErrK, "want 1 <= k <= 7"},
		{0, 3, 3, mnk.ErrBoardSize, "board 0x3: want 1 <= rows, cols <= 8"},
		{3, 9, 3, mnk.ErrBoardSize, "board 3x9"},
		{-1, 3, 3, mnk.ErrBoardSize, "board -1x3"},
	} {
		g, err := mnk.New(tc.rows, tc.cols, tc.k)
		if !errors.Is(err, tc.err) {
			t.Errorf("New(%d, %d, %d): err = %v, want %v", tc.rows, tc.cols, tc.k, err, tc.err)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("New(%d, %d, %d): err = %q, want it to contain %q", tc.rows, tc.cols, tc.k, err, tc.msg)
			}
			continue
		}
		if g.Cells() != tc.rows*tc.cols {
			t.Errorf("New(%d, %d, %d).Cells() = %d, want %d", tc.rows, tc.cols, tc.k, g.Cells(), tc.rows*tc.cols)
		}
	}
}

func TestGeometry(t *testing.T) {
	g := mnk.MustNew(3, 4, 3)
	if got, want := g.Mask(), uint64(0x0f0f0f); got != want {
		t.Errorf("3x4 Mask = %#x, want %#x", got, want)
	}
	if got, want := mnk.Cell(2, 3), 19; got != want {
		t.Errorf("Cell(2, 3) = %d, want %d", got, want)
	}
	p := mnk.Position{X: 1 << mnk.Cell(0, 0), O: 1 << mnk.Cell(1, 1)}
	if got, want := g.Empty(p), uint64(0x0f0d0e); got != want {
		t.Errorf("Empty = %#x, want %#x", got, want)
	}
	if p.Ply() != 2 || !p.XToMove() {
		t.Errorf("Ply, XToMove = %d, %v, want 2, true", p.Ply(), p.XToMove())
	}
	// 3x3: 3 rows, 3 columns, 2 diagonals. 3x4, k=3: 6 horizontal, 4
	// vertical, 2+2 diagonal.
	for _, tc := range []struct{ m, n, k, want int }{{3, 3, 3, 8}, {3, 4, 3, 14}, {4, 4, 4, 10}, {1, 1, 1, 1}, {2, 2, 1, 4}, {8, 8, 5, 4*8*2 + 4*4*2}} {
		if got := len(mnk.MustNew(tc.m, tc.n, tc.k).Windows()); got != tc.want {
			t.Errorf("%d,%d,%d: %d windows, want %d", tc.m, tc.n, tc.k, got, tc.want)
		}
	}
}

// randomStones returns random stones inside the board with a random
// density.
func randomStones(rng *rand.Rand, g *mnk.Game) uint64 {
	density := rng.Float64()
	var x uint64
	for e := g.Mask(); e != 0; e &= e - 1 {
		if rng.Float64() < density {
			x |= e & -e
		}
	}
	return x
}

// allShapes returns every board from 1x1 to 8x8.
func allShapes() [][2]int {
	var s [][2]int
	for m := 1; m <= mnk.MaxSide; m++ {
		for n := 1; n <= mnk.MaxSide; n++ {
			s = append(s, [2]int{m, n})
		}
	}
	return s
}

func TestLineThrough(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range allShapes() {
		for k := 1; k <= max(sh[0], sh[1]); k++ {
			g, r := mnk.MustNew(sh[0], sh[1], k), ref.Game{M: sh[0], N: sh[1], K: k}
			for range 40 {
				x := randomStones(rng, g)
				row, col := rng.IntN(sh[0]), rng.IntN(sh[1])
				want := ref.Has(x, row, col) && r.LineThrough(x, row, col)
				if got := g.LineThrough(x, mnk.Cell(row, col)); got != want {
					t.Errorf("%d,%d,%d: LineThrough(%s, (%d,%d)) = %v, want %v", sh[0], sh[1], k, g.String(mnk.Position{X: x}), row, col, got, want)
				}
				if got, want := g.HasLine(x), r.HasLine(x); got != want {
					t.Errorf("%d,%d,%d: HasLine(%s) = %v, want %v", sh[0], sh[1], k, g.String(mnk.Position{X: x}), got, want)
				}
			}
		}
	}
}

func TestPlayAndStatus(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sh := range allShapes() {
		for k := 1; k <= max(sh[0], sh[1]); k++ {
			g, r := mnk.MustNew(sh[0], sh[1], k), ref.Game{M: sh[0], N: sh[1], K: k}
			for range 5 {
				var p mnk.Position
				for res := mnk.Ongoing; res == mnk.Ongoing; {
					ml := r.Moves(p)
					ms := ml.List()
					m := ms[rng.IntN(len(ms))]
					want, wantRes := r.Play(p, m[0], m[1])
					var got mnk.Position
					got, res = g.Play(p, mnk.Cell(m[0], m[1]))
					if got != want || res != wantRes {
						t.Fatalf("%d,%d,%d: Play(%s, (%d,%d)) = %s, %v, want %s, %v", sh[0], sh[1], k, g.String(p), m[0], m[1], g.String(got), res, g.String(want), wantRes)
					}
					if st := g.Status(got); st != res {
						t.Fatalf("%d,%d,%d: Status(%s) = %v, want %v", sh[0], sh[1], k, g.String(got), st, res)
					}
					if err := g.Valid(got); err != nil {
						t.Fatalf("%d,%d,%d: Valid(%s) = %v, want nil", sh[0], sh[1], k, g.String(got), err)
					}
					p = got
				}
			}
		}
	}
}

func TestPlayPanics(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	for _, cell := range []int{mnk.Cell(0, 0), mnk.Cell(0, 3), mnk.Cell(3, 0), -1, 64} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Play(X on 0,0, %d) did not panic", cell)
				}
			}()
			g.Play(mnk.Position{X: 1}, cell)
		}()
	}
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		rows, cols, k int
		pos           string
		err           string // "" for valid
	}{
		{3, 3, 3, ".../.../...", ""},
		{3, 3, 3, "X../.../...", ""},
		{3, 3, 3, "XXX/OO./...", ""},
		{3, 3, 3, "XXX/OOO/X..", "O has a line but X moved last"},
		{3, 3, 3, "XXX/OO./O..", "X has a line but O moved last"},
		{3, 3, 3, "OOO/XX./XX.", "O has a line but X moved last"},
		{3, 3, 3, "XX./.../...", "2 X and 0 O stones"},
		{3, 3, 3, "O../.../...", "0 X and 1 O stones"},
		{3, 3, 3, "XXX/OXO/OOX", ""},                            // two lines through the last move
		{3, 3, 3, "XXX/OOX/OOX", ""},                            // row and column through (0,2)
		{4, 4, 3, "XXX./OO.O/O..O/XXX.", "no single last move"}, // two disjoint lines
		{3, 3, 3, "XOX/OXO/XOX", ""},                            // both diagonals through the last move
		{2, 2, 1, "XO/..", "X has a line but O moved last"},
		{1, 1, 1, "X", ""},
		{4, 4, 4, "XXXX/OOO./..../....", ""},
	} {
		g := mnk.MustNew(tc.rows, tc.cols, tc.k)
		p, err := g.Parse(tc.pos)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: Parse(%q) err = %v, want nil", g.Spec(), tc.pos, err)
			}
			continue
		}
		if !errors.Is(err, mnk.ErrInvalidPosition) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: Parse(%q) = %s, %v, want an ErrInvalidPosition containing %q", g.Spec(), tc.pos, g.String(p), err, tc.err)
		}
	}
	g := mnk.MustNew(3, 3, 3)
	for _, p := range []mnk.Position{{X: 1, O: 1}, {X: 1 << 3, O: 0}, {X: 1<<63 | 1, O: 2}} {
		if err := g.Valid(p); !errors.Is(err, mnk.ErrInvalidPosition) {
			t.Errorf("Valid(%#v) = %v, want ErrInvalidPosition", p, err)
		}
	}
}

// TestValidExhaustive compares Valid with the set of positions reached by
// play on small boards: a position is valid exactly when it is reached.
func TestValidExhaustive(t *testing.T) {
	for _, r := range ref.Games("3,3,3 2,3,2 2,2,1 3,3,2 1,4,2") {
		g := mnk.MustNew(r.M, r.N, r.K)
		reached := map[mnk.Position]bool{}
		var walk func(p mnk.Position, res mnk.Result)
		walk = func(p mnk.Position, res mnk.Result) {
			if reached[p] {
				return
			}
			reached[p] = true
			if res != mnk.Ongoing {
				return
			}
			for _, m := range r.Moves(p).List() {
				walk(r.Play(p, m[0], m[1]))
			}
		}
		walk(mnk.Position{}, mnk.Ongoing)
		// Every assignment of X, O or empty to the cells.
		cells := r.Cells()
		total := 1
		for range cells {
			total *= 3
		}
		for code := range total {
			var p mnk.Position
			for i, c := 0, code; i < cells; i, c = i+1, c/3 {
				bit := uint64(1) << mnk.Cell(i/r.N, i%r.N)
				switch c % 3 {
				case 1:
					p.X |= bit
				case 2:
					p.O |= bit
				}
			}
			if err := g.Valid(p); (err == nil) != reached[p] {
				t.Errorf("%s: Valid(%s) = %v, reached in play: %v", ref.Name(r), g.String(p), err, reached[p])
			}
		}
	}
}

func TestTransformCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range allShapes() {
		g, r := mnk.MustNew(sh[0], sh[1], 1), ref.Game{M: sh[0], N: sh[1], K: 1}
		if g.NumSymmetries() != r.NumSymmetries() {
			t.Errorf("%dx%d: NumSymmetries = %d, want %d", sh[0], sh[1], g.NumSymmetries(), r.NumSymmetries())
		}
		for i := range 60 {
			x := randomStones(rng, g)
			o := randomStones(rng, g) &^ x
			if i%3 == 0 {
				// Symmetric positions, to exercise orbit sizes below 8.
				s := rng.IntN(g.NumSymmetries())
				x |= r.Transform(mnk.Position{X: x}, s).X
				o = (o | r.Transform(mnk.Position{X: o}, s).X) &^ x
			}
			p := mnk.Position{X: x, O: o}
			for s := range g.NumSymmetries() {
				if got, want := g.Transform(p, s), r.Transform(p, s); got != want {
					t.Errorf("%dx%d: Transform(%s, %d) = %s, want %s", sh[0], sh[1], g.String(p), s, g.String(got), g.String(want))
				}
			}
			got, gotOrbit := g.Canonical(p)
			want, wantOrbit := r.Canonical(p)
			if got != want || gotOrbit != wantOrbit {
				t.Errorf("%dx%d: Canonical(%s) = %s, %d, want %s, %d", sh[0], sh[1], g.String(p), g.String(got), gotOrbit, g.String(want), wantOrbit)
			}
			for s := range g.NumSymmetries() {
				img := g.Transform(p, s)
				if c, _ := g.Canonical(img); c != got {
					t.Errorf("%dx%d: Canonical of image %d of %s = %s, want %s", sh[0], sh[1], s, g.String(p), g.String(c), g.String(got))
				}
				if g.Hash(img) != g.Hash(p) {
					t.Errorf("%dx%d: Hash of image %d of %s differs", sh[0], sh[1], s, g.String(p))
				}
			}
			if g.Hash(p) != mnk.Zobrist(got) {
				t.Errorf("%dx%d: Hash(%s) is not the Zobrist hash of its canonical form", sh[0], sh[1], g.String(p))
			}
		}
	}
}

func TestBoard(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, r := range ref.Games("3,3,3 4,4,4 3,5,3 8,8,5 6,7,4") {
		g := mnk.MustNew(r.M, r.N, r.K)
		b := mnk.NewBoard(g)
		var stack []mnk.Position
		buf := make([]int, 0, 64)
		for range 400 {
			p := b.Position()
			if b.Hash() != g.Hash(p) {
				t.Fatalf("%s: Board.Hash of %s = %#x, want %#x", ref.Name(r), g.String(p), b.Hash(), g.Hash(p))
			}
			if b.SymHash() != boardAt(g, g.Transform(p, rng.IntN(g.NumSymmetries()))).SymHash() {
				t.Fatalf("%s: SymHash differs between symmetric images of %s", ref.Name(r), g.String(p))
			}
			buf = b.Moves(buf)
			if len(buf) != g.Cells()-b.Ply() {
				t.Fatalf("%s: %d moves in %s, want %d", ref.Name(r), len(buf), g.String(p), g.Cells()-b.Ply())
			}
			if b.Result() == mnk.Ongoing && (len(stack) == 0 || rng.IntN(3) > 0) {
				m := buf[rng.IntN(len(buf))]
				want, wantRes := g.Play(p, m)
				if got := b.Make(m); got != wantRes || b.Position() != want {
					t.Fatalf("%s: Make(%d) on %s = %s, %v, want %s, %v", ref.Name(r), m, g.String(p), g.String(b.Position()), got, g.String(want), wantRes)
				}
				stack = append(stack, p)
				continue
			}
			b.Unmake()
			want := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if b.Position() != want || b.Ply() != want.Ply() {
				t.Fatalf("%s: Unmake gave %s, want %s", ref.Name(r), g.String(b.Position()), g.String(want))
			}
		}
	}
}

func boardAt(g *mnk.Game, p mnk.Position) *mnk.Board {
	b := mnk.NewBoard(g)
	b.SetPosition(p)
	return b
}

func TestBoardAllocs(t *testing.T) {
	g := mnk.MustNew(4, 4, 4)
	b := mnk.NewBoard(g)
	buf := make([]int, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		buf = b.Moves(buf)
		for _, m := range buf {
			b.Make(m)
			_ = b.Hash()
			b.Unmake()
		}
	}); n != 0 {
		t.Errorf("Board Moves/Make/Hash/Unmake: %v allocations, want 0", n)
	}
}

func TestParseString(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	p, err := g.ParseMoves("1,1 0,0 2,2")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.String(p), "O../.X./..X"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	q, err := g.Parse("o../.x./..X")
	if err != nil || q != p {
		t.Errorf("Parse = %s, %v, want %s, nil", g.String(q), err, g.String(p))
	}
	for _, tc := range []struct {
		s   string
		err error
		msg string
	}{
		{"X../...", mnk.ErrSyntax, "2 rows, want 3"},
		{"X../..../...", mnk.ErrSyntax, "row 1 has 4 cells, want 3"},
		{"X../.Q./...", mnk.ErrSyntax, "row 1 column 1: 'Q'"},
		{"XX./.../...", mnk.ErrInvalidPosition, "2 X and 0 O"},
	} {
		if _, err := g.Parse(tc.s); !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%q) err = %v, want %v containing %q", tc.s, err, tc.err, tc.msg)
		}
	}
	for _, tc := range []struct {
		s   string
		err error
		msg string
	}{
		{"1,1 0;0", mnk.ErrSyntax, `move 2 "0;0": want row,col`},
		{"1,1 a,0", mnk.ErrSyntax, `move 2 "a,0"`},
		{"1,1 3,0", mnk.ErrInvalidPosition, `move 2 "3,0": outside the 3x3 board`},
		{"1,1 0,-1", mnk.ErrInvalidPosition, `move 2 "0,-1": outside`},
		{"1,1 0,0 1,1", mnk.ErrInvalidPosition, `move 3 "1,1": cell is occupied`},
		{"0,0 1,0 0,1 1,1 0,2 2,2", mnk.ErrInvalidPosition, `move 6 "2,2": the game is over (X wins)`},
	} {
		if _, err := g.ParseMoves(tc.s); !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseMoves(%q) err = %v, want %v containing %q", tc.s, err, tc.err, tc.msg)
		}
	}
	if p, err := g.ParseMoves("  "); err != nil || p != (mnk.Position{}) {
		t.Errorf("ParseMoves(blank) = %s, %v, want the empty board", g.String(p), err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"X.O/.X./...", ".../.../...", "XXX/OO./...", "XO", "x../o../...", "////"} {
		f.Add(3, 3, 3, s)
	}
	f.Add(2, 2, 1, "X./..")
	f.Fuzz(func(t *testing.T, rows, cols, k int, s string) {
		g, err := mnk.New(rows, cols, k)
		if err != nil {
			return
		}
		p, err := g.Parse(s)
		if err != nil {
			return
		}
		out := g.String(p)
		q, err := g.Parse(out)
		if err != nil || q != p {
			t.Fatalf("%s: Parse(%q) = %s, then Parse(%q) = %v, %v", g.Spec(), s, out, out, q, err)
		}
		if !strings.EqualFold(out, s) {
			t.Fatalf("%s: String(Parse(%q)) = %q", g.Spec(), s, out)
		}
	})
}

func ExampleGame_ParseMoves() {
	g := mnk.MustNew(3, 3, 3)
	p, err := g.ParseMoves("1,1 0,0 2,2 0,2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.String(p), g.Status(p))
	_, err = g.ParseMoves("1,1 1,1")
	fmt.Println(err)
	// Output:
	// O.O/.X./..X ongoing
	// move 2 "1,1": cell is occupied: invalid position
}

func ExampleGame_Canonical() {
	g := mnk.MustNew(3, 3, 3)
	p, _ := g.Parse("..X/.../...")
	c, orbit := g.Canonical(p)
	fmt.Println(g.String(c), orbit)
	// Output: X../.../... 4
}
