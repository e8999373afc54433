package cert

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

func TestReadCertificateErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "line 0: not a wopr mnk certificate"},
		{certificateMagic + "\ngame 3x3\n", "line 2: game \"3x3\""},
		{certificateMagic + "\ngame 3,3,3\nroot .../.../...\nvalue maybe\n", "line 4: value \"maybe\""},
		{certificateMagic + "\ngame 3,3,3\nroot .../.../...\nvalue draw\nstrategy X not-lose 2\n0 0 4\n", "line 6: the file ends inside"},
		{certificateMagic + "\ngame 3,3,3\nroot .../.../...\nvalue draw\nstrategy X not-lose 1\nzz 0 4\n", "line 6: want \"X O cell\""},
		{certificateMagic2 + "\ngame 3,3,3\nroot .../.../...\nvalue draw\nstrategy X not-lose 1\n0 0 pairs 1-2 3/4\n", "line 6: pair \"3/4\""},
		{certificateMagic2 + "\ngame 3,3,3\nroot .../.../...\nvalue draw\nstrategy X not-lose 2\n0 0 pairs 1-2\n0 0 4\n", "line 7: a second line for the position 0 0"},
		{certificateMagic + "\ngame 3,3,3\nroot .../.../...\nvalue draw\nstrategy X not-lose 1\n0 0 pairs 1-2\n", "line 6: a pairing in a certificate of version 1"},
	} {
		if _, err := Read(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.text, err, c.want)
		}
	}
}

// The verifier's lines are the engine's windows, found apart.
func TestKLines(t *testing.T) {
	for r := 1; r <= mnk.MaxSide; r++ {
		for c := 1; c <= mnk.MaxSide; c++ {
			for k := 1; k <= max(r, c); k++ {
				g := mnk.MustNew(r, c, k)
				lines := Lines(r, c, k)
				want := map[uint64]bool{}
				for _, w := range g.Windows() {
					want[w] = true
				}
				got := map[uint64]bool{}
				for _, w := range lines {
					got[w] = true
					if !want[w] {
						t.Fatalf("%s: line %#x is no window", g.Spec(), w)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d lines, want %d windows", g.Spec(), len(got), len(want))
				}
			}
		}
	}
}

func TestAttackerHopeless(t *testing.T) {
	for _, c := range []struct {
		r, c, k   int
		board     string
		attX      bool
		attToMove bool
		want      bool
	}{
		{1, 5, 5, ".....", true, true, true},     // five to place, three moves
		{1, 5, 3, ".....", true, true, false},    // three to place, three moves
		{1, 5, 3, ".....", true, false, true},    // three to place, two moves
		{1, 5, 3, "X.O..", true, true, true},     // every line holds an O
		{1, 7, 4, "X.O....", false, true, false}, // O needs three on 2..5 and places three
		{1, 7, 4, "X.O....", false, false, true}, // and places two
		{3, 3, 3, "X.O/.X./O.X", false, true, true},
		{3, 3, 3, "XO./.X./...", false, true, false}, // the bottom row
	} {
		g := mnk.MustNew(c.r, c.c, c.k)
		p, err := g.Parse(c.board)
		if err != nil {
			t.Fatal(err)
		}
		att, def := p.X, p.O
		if !c.attX {
			att, def = def, att
		}
		if got := Hopeless(Lines(c.r, c.c, c.k), c.k, att, def, g.Empty(p), c.attToMove); got != c.want {
			t.Errorf("%s %s, attacker X %v to move %v: hopeless %v, want %v", g.Spec(), c.board, c.attX, c.attToMove, got, c.want)
		}
	}
}

// TestRules: the verifier's own rules agree with package mnk's on every
// board: the result of every move of random games, the images of their
// positions under every symmetry, their canonical forms, and which of them
// can be a proof's root.
func TestRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for rows := 1; rows <= mnk.MaxSide; rows++ {
		for cols := 1; cols <= mnk.MaxSide; cols++ {
			for k := 1; k <= max(rows, cols); k++ {
				g, r := mnk.MustNew(rows, cols, k), newRules(rows, cols, k)
				if r.nsym != g.NumSymmetries() || r.mask != g.Mask() {
					t.Fatalf("%s: %d symmetries, mask %#x; want %d, %#x", g.Spec(), r.nsym, r.mask, g.NumSymmetries(), g.Mask())
				}
				for range 3 {
					p, res := mnk.Position{}, mnk.Ongoing
					for res == mnk.Ongoing {
						if err := r.root(p); err != nil {
							t.Fatalf("%s: %s is not a root: %v", g.Spec(), g.String(p), err)
						}
						for s := range r.nsym {
							if got, want := r.transform(p, s), g.Transform(p, s); got != want {
								t.Fatalf("%s: image %d of %s is %s, want %s", g.Spec(), s, g.String(p), g.String(got), g.String(want))
							}
						}
						key, sym := r.canonical(p)
						if want, _ := g.Canonical(p); key != want || r.transform(p, sym) != key {
							t.Fatalf("%s: canonical %s of %s (symmetry %d), want %s", g.Spec(), g.String(key), g.String(p), sym, g.String(want))
						}
						empty := g.Empty(p)
						cell := -1
						for n := rng.IntN(bits.OnesCount64(empty)); n >= 0; n-- {
							cell = bits.TrailingZeros64(empty)
							empty &= empty - 1
						}
						if c := r.preimage(sym, int(r.image[sym][cell])); c != cell {
							t.Fatalf("%s: the preimage under %d of the image of %d is %d", g.Spec(), sym, cell, c)
						}
						q, got := r.play(p, cell)
						want, wantRes := g.Play(p, cell)
						if q != want || got != wantRes {
							t.Fatalf("%s: %d on %s gives %s, %v; want %s, %v", g.Spec(), cell, g.String(p), g.String(q), got, g.String(want), wantRes)
						}
						p, res = q, got
					}
					if err := r.root(p); err == nil {
						t.Errorf("%s: the finished %s (%v) can be a root", g.Spec(), g.String(p), res)
					}
				}
			}
		}
	}
}

// The verifier's block game: the five cells a to e with edges {a,b},
// {a,c,d}, {b,c,e} are a win for Breaker (the smallest matching that no
// pairing gives); a path {a,b}, {b,c} and an edge of one cell are Maker's;
// disjoint pairs are Breaker's; taking a cell out of the five-cell block's
// edge {a,c,d} gives Maker the game.
func TestBlockGame(t *testing.T) {
	const a, b, c, d, e = 1, 2, 4, 8, 16
	for _, tc := range []struct {
		edges []uint64
		free  uint64
		want  bool
	}{
		{[]uint64{a | b, a | c | d, b | c | e}, 31, true},
		{[]uint64{a | b, a | c, b | c | e}, 31, false},
		{[]uint64{a | b, b | c}, 7, false},
		{[]uint64{a}, 3, false},
		{[]uint64{a | b, c | d}, 15, true},
		{nil, 3, true},
	} {
		if got := breakerWins(tc.edges, tc.free); got != tc.want {
			t.Errorf("edges %b on %b: Breaker wins %v, want %v", tc.edges, tc.free, got, tc.want)
		}
	}
}
