package cert_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/cert"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
)

func certify(t *testing.T, g *mnk.Game) *cert.Certificate {
	t.Helper()
	c, err := solve.NewCertificate(context.Background(), solve.New(g, 16<<20), mnk.Position{}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func proofCertify(tb testing.TB, g *mnk.Game, ttBytes int) *cert.Certificate {
	tb.Helper()
	c, err := pns.NewCertificate(context.Background(), pns.New(g, ttBytes), mnk.Position{}, 0, nil)
	if err != nil {
		tb.Fatalf("%s: %v", g.Spec(), err)
	}
	return c
}

// text writes c and reads it back: a deep copy, and a check of the format.
func text(tb testing.TB, c *cert.Certificate) (*cert.Certificate, []byte) {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		tb.Fatal(err)
	}
	back, err := cert.Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		tb.Fatalf("%s: reading back: %v", c.Game.Spec(), err)
	}
	return back, buf.Bytes()
}

// Certificates that do not prove their value fail: a move missing, a move
// that throws the game away, a value claimed that the strategies do not
// give, a strategy missing.
func TestCertificateRefusesBadProofs(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	fresh := func() *cert.Certificate { return certify(t, g) }
	check := func(name string, c *cert.Certificate) {
		t.Helper()
		if _, err := c.Verify(context.Background()); !errors.Is(err, cert.ErrInvalid) {
			t.Errorf("%s: %v, want cert.ErrInvalid", name, err)
		}
	}
	c := fresh()
	for k := range c.Strategies[0].Moves {
		if k == (mnk.Position{}) {
			delete(c.Strategies[0].Moves, k)
		}
	}
	check("the first move missing", c)

	c = fresh()
	// X's first move in a corner, then O's strategy answered by an edge:
	// find some O position and replace its move by each other cell until
	// one fails; a strategy that does not lose has few safe moves.
	broken := false
	for k, m := range c.Strategies[1].Moves {
		for cell := range 9 {
			cell = mnk.Cell(cell/3, cell%3)
			if int8(cell) == m || (k.X|k.O)>>cell&1 != 0 {
				continue
			}
			c.Strategies[1].Moves[k] = int8(cell)
			if _, err := c.Verify(context.Background()); errors.Is(err, cert.ErrInvalid) {
				broken = true
				break
			}
			c.Strategies[1].Moves[k] = m
		}
		if broken {
			break
		}
	}
	if !broken {
		t.Error("no changed move of O's strategy made it lose: the verifier checks nothing")
	}

	c = fresh()
	c.Value = mnk.Win
	c.Strategies[0].Win = true
	c.Strategies = c.Strategies[:1]
	check("a draw's strategy of X claimed as a win", c)

	c = fresh()
	c.Strategies = c.Strategies[1:]
	check("a draw with one strategy", c)
}

// refused checks that c fails to verify with cert.ErrInvalid and a message
// holding want.
func refused(t *testing.T, name string, c *cert.Certificate, want string) {
	t.Helper()
	_, err := c.Verify(context.Background())
	if !errors.Is(err, cert.ErrInvalid) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want cert.ErrInvalid with %q", name, err, want)
	}
}

// Certificates with pairings that do not prove their value fail, each
// with a message naming the position and what is wrong: a pairing that
// leaves a line without a pair, one on a taken cell or using a cell twice,
// a pairing where the other side already has four of five, a move
// missing, a move that throws the game away, a pairing in a strategy to
// win, a value the strategies do not prove.
func TestProofCertificateRefusesBadProofs(t *testing.T) {
	g := mnk.MustNew(6, 6, 5)
	orig := proofCertify(t, g, 16<<20)
	fresh := func() *cert.Certificate { c, _ := text(t, orig); return c }
	if _, err := fresh().Verify(context.Background()); err != nil {
		t.Fatalf("6,6,5: %v", err)
	}
	withPairings := func(c *cert.Certificate) *cert.Strategy {
		for _, st := range c.Strategies {
			if len(st.Pairings) > 0 {
				return st
			}
		}
		t.Fatal("6,6,5: no strategy with a pairing")
		return nil
	}

	// Each pair of each pairing left out in turn: some leave a line
	// uncovered, and each of those is refused.
	refusedOnce := false
	for key, pairs := range withPairings(orig).Pairings {
		for i := range pairs {
			c := fresh()
			st := withPairings(c)
			st.Pairings[key] = append(st.Pairings[key][:i:i], st.Pairings[key][i+1:]...)
			if _, err := c.Verify(context.Background()); err != nil {
				refused(t, "a pair left out", c, "without a pair")
				refusedOnce = true
			}
		}
	}
	if !refusedOnce {
		t.Error("no pairing with a pair left out was refused: the verifier checks no line")
	}

	c := fresh()
	st := withPairings(c)
	done := false
	for key, pairs := range st.Pairings {
		if key.X|key.O == 0 {
			continue
		}
		taken := bits.TrailingZeros64(key.X | key.O)
		pairs[0][0] = int8(taken)
		refused(t, "a pair on a taken cell", c, fmt.Sprintf("pairs the cell %d,%d, which is not an empty cell", taken/8, taken%8))
		done = true
		break
	}
	if !done {
		t.Error("6,6,5: no pairing past the empty board")
	}

	c = fresh()
	st = withPairings(c)
	done = false
	for _, pairs := range st.Pairings {
		if len(pairs) > 1 {
			pairs[1][0] = pairs[0][0]
			refused(t, "a cell in two pairs", c, "twice")
			done = true
			break
		}
	}
	if !done {
		t.Error("6,6,5: no pairing of two pairs or more")
	}

	// The pairing of X on the empty 5x5 board placed where O, to move,
	// has four of the top row and the fifth cell free: that line holds
	// one empty cell, no pair.
	g5 := mnk.MustNew(5, 5, 5)
	c5 := proofCertify(t, g5, 1<<20)
	root, err := g5.Parse("OOOO./X.X../..X../X..X./.....")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range c5.Strategies {
		if st.X {
			st.Pairings = map[mnk.Position][]cert.Pair{}
			key, _ := g5.CanonicalSym(root)
			var pairs []cert.Pair
			for _, pr := range proofCertify(t, g5, 1<<20).Strategies[0].Pairings[mnk.Position{}] {
				if (key.X|key.O)>>uint(pr[0])&1 == 0 && (key.X|key.O)>>uint(pr[1])&1 == 0 {
					pairs = append(pairs, pr)
				}
			}
			st.Pairings[key] = pairs
		}
	}
	c5.Root = root
	refused(t, "a pairing where O can complete a line", c5, "without a pair")

	// Every move of the strategies left out in turn is missed.
	for i, st := range orig.Strategies {
		for key := range st.Moves {
			c := fresh()
			delete(c.Strategies[i].Moves, key)
			refused(t, "a move left out", c, "has no move at")
		}
	}

	// Other cells for the moves: each is refused or proves the value as
	// well, and some throw the game away.
	lost := 0
	for _, proof := range []*cert.Certificate{orig, proofCertify(t, mnk.MustNew(4, 4, 4), 1<<20), proofCertify(t, mnk.MustNew(3, 4, 3), 1<<20)} {
		for i, st := range proof.Strategies {
			for key, m := range st.Moves {
				for cell := range 64 {
					if int8(cell) == m || proof.Game.Empty(key)>>uint(cell)&1 == 0 {
						continue
					}
					c, _ := text(t, proof)
					c.Strategies[i].Moves[key] = int8(cell)
					_, err := c.Verify(context.Background())
					if err != nil && !errors.Is(err, cert.ErrInvalid) {
						t.Errorf("%s, a move changed: %v, want cert.ErrInvalid", proof.Game.Spec(), err)
					}
					if err != nil && (strings.Contains(err.Error(), "loses at") || strings.Contains(err.Error(), "draws at")) {
						lost++
					}
				}
			}
		}
	}
	if lost == 0 {
		t.Error("no changed move made a strategy lose or draw: the verifier checks no play")
	}

	c = fresh()
	c.Value = mnk.Win
	refused(t, "a draw claimed as a win", c, "needs a strategy of X to win")
	c = fresh()
	c.Value = mnk.Loss
	refused(t, "a draw claimed as a loss", c, "needs a strategy of O to win")
	c = fresh()
	c.Value = mnk.Win
	for _, st := range c.Strategies {
		st.Win = true
	}
	refused(t, "strategies not to lose relabelled to win", c, "holds pairings")

	w := proofCertify(t, mnk.MustNew(4, 4, 3), 1<<20)
	w.Value = mnk.Drawn
	refused(t, "a win claimed as a draw", w, "needs a strategy of")
}

// Certificates of version 1 (moves only), as the build before pairings
// wrote them (testdata/*-v1.cert: analyze mnk solve --certificate at
// 60e82ba) and as the alpha-beta extraction still does, read and verify;
// pairings under a version 1 header are refused.
func TestCertificateVersions(t *testing.T) {
	for _, c := range []struct {
		file string
		v    mnk.Value
	}{{"testdata/333-v1.cert", mnk.Drawn}, {"testdata/343-v1.cert", mnk.Win}} {
		f, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := cert.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if _, err := proof.Verify(context.Background()); err != nil || proof.Value != c.v {
			t.Errorf("%s: %v, %v; want %v proven", c.file, proof.Value, err, c.v)
		}
	}

	c := certify(t, mnk.MustNew(3, 4, 3))
	_, data := text(t, c)
	if !bytes.HasPrefix(data, []byte("wopr mnk certificate 1"+"\n")) {
		t.Errorf("a certificate without pairings starts %q, want %q", data[:30], "wopr mnk certificate 1")
	}
	p := proofCertify(t, mnk.MustNew(5, 5, 5), 1<<20)
	_, data = text(t, p)
	if !bytes.HasPrefix(data, []byte("wopr mnk certificate 2"+"\n")) {
		t.Errorf("a certificate with pairings starts %q, want %q", data[:30], "wopr mnk certificate 2")
	}
	old := strings.Replace(string(data), "wopr mnk certificate 2", "wopr mnk certificate 1", 1)
	if _, err := cert.Read(strings.NewReader(old)); err == nil || !strings.Contains(err.Error(), "a pairing in a certificate of version 1") {
		t.Errorf("pairings under a version 1 header: %v, want an error", err)
	}
}

// skips verifies c, and returns the moves of the other side that Verify
// did not follow because of the zones: the position (canonical), the cell
// and whether the strategy was X's.
func skips(t *testing.T, c *cert.Certificate) []skip {
	t.Helper()
	var out []skip
	seen := map[skip]bool{}
	cert.SetOnSkip(func(p mnk.Position, cell int, x bool) {
		if s := (skip{p, cell, x}); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	})
	defer cert.SetOnSkip(nil)
	if _, err := c.Verify(context.Background()); err != nil {
		t.Fatalf("%s: %v", c.Game.Spec(), err)
	}
	return out
}

type skip struct {
	p    mnk.Position
	cell int
	x    bool
}

// unsoundSkips returns how many of the skipped moves (up to most of them,
// spread over the list) the plain proof-number solver, without zones,
// finds to win for the side that played them: each is a move that the
// strategy was not shown to answer.
func unsoundSkips(t *testing.T, g *mnk.Game, sk []skip, most int) (checked, unsound int) {
	t.Helper()
	s := pns.New(g, 16<<20)
	step := max(1, len(sk)/most)
	for i := 0; i < len(sk); i += step {
		q, r := g.Play(sk[i].p, sk[i].cell)
		checked++
		if r != mnk.Ongoing {
			if (r == mnk.XWin) != sk[i].x && r != mnk.Draw {
				unsound++
			}
			continue
		}
		// The other side of the strategy played; does it win from here?
		win, err := s.Prove(context.Background(), q, !sk[i].x)
		if err != nil {
			t.Fatal(err)
		}
		if win {
			unsound++
		}
	}
	return checked, unsound
}

// TestZoneCertificates: the proof-number solver's certificates rely on
// zones (version 3: moves of the other side left out where a zone answers
// them), are smaller than the same without (which verify too), and every
// move that Verify leaves out, checked by the plain solver, is one the
// side that plays it does not win after: the zones are sound where they
// are used.
func TestZoneCertificates(t *testing.T) {
	race.SkipSerial(t)
	for _, b := range [][3]int{{4, 5, 4}, {5, 5, 4}, {7, 7, 5}} {
		g := mnk.MustNew(b[0], b[1], b[2])
		c := proofCertify(t, g, 16<<20)
		back, data := text(t, c)
		if !c.Zones || !back.Zones || !bytes.HasPrefix(data, []byte("wopr mnk certificate 3\n")) {
			t.Errorf("%s: Zones %v, read back %v, first line %q; want a certificate of version 3", g.Spec(), c.Zones, back.Zones, bytes.SplitN(data, []byte("\n"), 2)[0])
		}
		sk := skips(t, back)
		checked, unsound := unsoundSkips(t, g, sk, 400)
		if unsound > 0 || checked == 0 {
			t.Errorf("%s: %d of %d moves left out win for the side that plays them (want none of some)", g.Spec(), unsound, checked)
		}
		t.Logf("%s: %d moves, %d pairings, %d bytes; %d moves left out, %d of them checked", g.Spec(), c.Size(), c.Pairings(), len(data), len(sk), checked)
	}

}

// TestZoneNearMiss: the zone of a position where the strategy's side has
// completed a line must hold an empty cell of each line free of its
// stones (WonZone), since the other side's moves left out because of it
// must not complete one. On 1x8, k = 3, X to move at . . X X O O . .
// (cells 2, 3 X, 4, 5 O), X wins at once on 1, so "a draw" is false. O's
// strategy answers X on 0 with 6 (O's line), and X on 6 with 1. Verify
// refuses it: X's move on 1 is inside the zone of X's move on 0, and is
// followed. With WonZone empty the zone of X's move on 0 is only 6, X's
// winning move is left out, and the false certificate verifies.
func TestZoneNearMiss(t *testing.T) {
	g := mnk.MustNew(1, 8, 3)
	root := mnk.Position{X: 1<<2 | 1<<3, O: 1<<4 | 1<<5}
	c := cert.New(g, root, mnk.Drawn)
	move := func(st *cert.Strategy, p mnk.Position, cell int) {
		key, sym := g.CanonicalSym(p)
		st.Moves[key] = g.MapCell(sym, cell)
	}
	for _, st := range c.Strategies {
		st.Moves = map[mnk.Position]int8{}
		if st.X {
			move(st, root, 1)
			continue
		}
		after0, _ := g.Play(root, 0)
		move(st, after0, 6)
		after6, _ := g.Play(root, 6)
		move(st, after6, 1)
	}
	if _, err := c.Verify(context.Background()); !errors.Is(err, cert.ErrInvalid) {
		t.Errorf("a false draw of 1,8,3: %v, want cert.ErrInvalid", err)
	}
	cert.SetWonZoneEmpty(true)
	defer cert.SetWonZoneEmpty(false)
	if _, err := c.Verify(context.Background()); err != nil {
		t.Errorf("with WonZone empty: %v; want the false draw to verify (the position would not test the rule)", err)
	}
}
