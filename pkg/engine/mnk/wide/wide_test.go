package wide

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// toWide and fromWide carry a position between the packages: on boards of
// up to 8 columns both number cell (r, c) as bit r*8+c.
func toWide(p mnk.Position) Position   { return Position{Set{Lo: p.X}, Set{Lo: p.O}} }
func fromWide(p Position) mnk.Position { return mnk.Position{X: p.X.Lo, O: p.O.Lo} }

// randomGame plays random moves from the empty board until the game ends
// or plies moves are made, in both packages at once, and fails the test
// where they differ.
func randomGame(t *testing.T, rng *rand.Rand, g *mnk.Game, w *Game, plies int) []mnk.Position {
	t.Helper()
	var p mnk.Position
	out := []mnk.Position{p}
	for range plies {
		empty := g.Empty(p)
		if empty == 0 || g.Status(p) != mnk.Ongoing {
			break
		}
		cells := []int{}
		for c := range 64 {
			if empty>>c&1 != 0 {
				cells = append(cells, c)
			}
		}
		c := cells[rng.IntN(len(cells))]
		q, r := g.Play(p, c)
		wq, wr := w.Play(toWide(p), c)
		if fromWide(wq) != q || wr != g.Status(q) || r == mnk.Ongoing && wr != mnk.Ongoing {
			t.Fatalf("%s: %s after %d: wide %s %v, mnk %s %v", g.Spec(), g.String(p), c, w.String(wq), wr, g.String(q), r)
		}
		p = q
		out = append(out, p)
	}
	return out
}

// On every board package mnk takes, the wide game has the same windows in
// the same order, the same symmetries, canonical forms, results and text.
func TestAgreesWithMnk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for rows := 1; rows <= 8; rows++ {
		for cols := 1; cols <= 8; cols++ {
			for _, k := range []int{1, 2, 3, 4, 5, 8} {
				if k > max(rows, cols) {
					continue
				}
				g, w := mnk.MustNew(rows, cols, k), MustNew(rows, cols, k)
				if w.Stride != 8 || w.Mask() != (Set{Lo: g.Mask()}) || w.Cells() != g.Cells() || w.NumSymmetries() != g.NumSymmetries() {
					t.Fatalf("%s: stride %d, mask %v, %d cells, %d symmetries", g.Spec(), w.Stride, w.Mask(), w.Cells(), w.NumSymmetries())
				}
				if len(w.Windows()) != len(g.Windows()) {
					t.Fatalf("%s: %d windows, want %d", g.Spec(), len(w.Windows()), len(g.Windows()))
				}
				for i, win := range g.Windows() {
					if w.Windows()[i] != (Set{Lo: win}) {
						t.Fatalf("%s: window %d is %v, want %#x", g.Spec(), i, w.Windows()[i], win)
					}
				}
				for s := range g.NumSymmetries() {
					for c := range 64 {
						if g.Mask()>>c&1 != 0 && (w.MapCell(s, c) != g.MapCell(s, c) || w.UnmapCell(s, c) != g.UnmapCell(s, c)) {
							t.Fatalf("%s: symmetry %d maps cell %d to %d (back %d), want %d (%d)", g.Spec(), s, c, w.MapCell(s, c), w.UnmapCell(s, c), g.MapCell(s, c), g.UnmapCell(s, c))
						}
					}
				}
				for range 5 {
					for _, p := range randomGame(t, rng, g, w, rows*cols) {
						wp := toWide(p)
						if w.Status(wp) != g.Status(p) || w.String(wp) != g.String(p) || (w.Valid(wp) == nil) != (g.Valid(p) == nil) {
							t.Fatalf("%s: %s: status %v, text %s; want %v", g.Spec(), g.String(p), w.Status(wp), w.String(wp), g.Status(p))
						}
						c, cs := w.CanonicalSym(wp)
						gc, gs := g.CanonicalSym(p)
						if fromWide(c) != gc || cs != gs {
							t.Fatalf("%s: %s: canonical %s by %d, want %s by %d", g.Spec(), g.String(p), w.String(c), cs, g.String(gc), gs)
						}
						im, n := w.Images(wp)
						gim, gn := g.Images(p)
						for s := range n {
							if fromWide(im[s]) != gim[s] {
								t.Fatalf("%s: %s: image %d %s, want %s", g.Spec(), g.String(p), s, w.String(im[s]), g.String(gim[s]))
							}
						}
						if e := g.Empty(p); p.Ply() < rows*cols && gn == n && e != 0 {
							cell := bits.Len64(e) - 1 // the highest empty cell
							x := p.XToMove()
							wc, ws := w.ChildCanonical(&im, n, cell, x)
							gc, gs := g.ChildCanonical(&gim, gn, cell, x)
							if fromWide(wc) != gc || ws != gs {
								t.Fatalf("%s: %s: child %d canonical %s by %d, want %s by %d", g.Spec(), g.String(p), cell, w.String(wc), ws, g.String(gc), gs)
							}
						}
					}
				}
			}
		}
	}
}

// Boards past 8 columns lay rows of Cols bits; 9x9 has 81 cells, its lines
// of 5 are 9*5 rows, 9*5 columns and 2*25 diagonals.
func TestWideBoards(t *testing.T) {
	g := MustNew(9, 9, 5)
	if g.Stride != 9 || g.Mask().Len() != 81 || len(g.Windows()) != 140 || g.NumSymmetries() != 8 {
		t.Fatalf("9,9,5: stride %d, %d cells, %d windows, %d symmetries", g.Stride, g.Mask().Len(), len(g.Windows()), g.NumSymmetries())
	}
	if n := len(MustNew(11, 11, 5).Windows()); n != 11*7*2+2*49 {
		t.Errorf("11,11,5: %d windows", n)
	}
	if n := MustNew(11, 8, 4).Stride; n != 8 {
		t.Errorf("11x8 stride %d, want 8", n)
	}
	// The centre and a corner: the center is fixed by every symmetry, the
	// corner's images are the four corners.
	centre := g.Cell(4, 4)
	for s := range 8 {
		if int(g.MapCell(s, centre)) != centre {
			t.Errorf("symmetry %d moves the centre to %d", s, g.MapCell(s, centre))
		}
	}
	corners := map[int8]bool{}
	for s := range 8 {
		corners[g.MapCell(s, 0)] = true
	}
	if len(corners) != 4 || !corners[int8(g.Cell(8, 8))] || !corners[int8(g.Cell(0, 8))] || !corners[int8(g.Cell(8, 0))] {
		t.Errorf("the images of a corner: %v", corners)
	}
	// A line of five on the last row (cells past 64) wins.
	p, err := g.ParseMoves("8,0 0,0 8,1 0,1 8,2 0,2 8,3 0,3")
	if err != nil {
		t.Fatal(err)
	}
	q, r := g.Play(p, g.Cell(8, 4))
	if r != mnk.XWin || g.Status(q) != mnk.XWin || g.Valid(q) != nil {
		t.Fatalf("%s: %v, want X's win", g.String(q), r)
	}
	back, err := g.Parse(g.String(q))
	if err != nil || back != q {
		t.Fatalf("parse of %s: %v %v", g.String(q), g.String(back), err)
	}
	if _, err := g.ParseMoves("9,0"); err == nil {
		t.Error("a move off the board was accepted")
	}
	for _, bad := range [][3]int{{12, 12, 5}, {9, 9, 10}, {0, 9, 3}, {12, 8, 4}} {
		if _, err := New(bad[0], bad[1], bad[2]); !errors.Is(err, mnk.ErrBoardSize) && !errors.Is(err, mnk.ErrK) {
			t.Errorf("New%v: %v, want a size error", bad, err)
		}
	}
}
