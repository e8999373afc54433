package mnk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"strings"
	"testing"
	"time"
)

func proofCertify(tb testing.TB, g *Game, ttBytes int) *Certificate {
	tb.Helper()
	c, err := NewProofCertificate(context.Background(), NewProofSolver(g, ttBytes), Position{}, 0, nil)
	if err != nil {
		tb.Fatalf("%s: %v", g.Spec(), err)
	}
	return c
}

// text writes c and reads it back: a deep copy, and a check of the format.
func text(tb testing.TB, c *Certificate) (*Certificate, []byte) {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		tb.Fatal(err)
	}
	back, err := ReadCertificate(bytes.NewReader(buf.Bytes()))
	if err != nil {
		tb.Fatalf("%s: reading back: %v", c.Game.Spec(), err)
	}
	return back, buf.Bytes()
}

// Certificates from the proof-number solver verify after a round trip
// through text, with the known values, on boards beyond the alpha-beta
// solver's 36 cells too; the k = 5 draws end in pairings, the wins have
// none.
func TestProofCertificateKnownValues(t *testing.T) {
	for _, c := range []struct {
		r, c, k  int
		v        Value
		pairings bool
	}{
		{3, 3, 3, Drawn, true}, {3, 4, 3, Win, false}, {4, 4, 3, Win, false}, {4, 4, 4, Drawn, true},
		{5, 5, 4, Drawn, true}, {6, 5, 4, Win, false}, {2, 2, 2, Win, false}, {1, 3, 1, Win, false},
		{5, 5, 5, Drawn, true}, {6, 6, 5, Drawn, true}, {7, 7, 5, Drawn, true},
	} {
		g := MustNew(c.r, c.c, c.k)
		start := time.Now()
		cert := proofCertify(t, g, 16<<20)
		took := time.Since(start)
		if cert.Value != c.v || (cert.Pairings() > 0) != c.pairings {
			t.Errorf("%s: value %v with %d pairings, want %v (pairings: %v)", g.Spec(), cert.Value, cert.Pairings(), c.v, c.pairings)
		}
		back, data := text(t, cert)
		start = time.Now()
		n, err := back.Verify(context.Background())
		if err != nil {
			t.Errorf("%s: %v", g.Spec(), err)
		}
		t.Logf("%s: %v, %d moves, %d pairings, %d bytes, written in %v, %d positions verified in %v",
			g.Spec(), cert.Value, cert.Size(), cert.Pairings(), len(data), took, n, time.Since(start))
	}
}

// A table too small to keep the proof makes the extraction prove positions
// again, and the certificate still verifies.
func TestProofCertificateSmallTable(t *testing.T) {
	for _, g := range []*Game{MustNew(5, 5, 4), MustNew(6, 6, 5), MustNew(4, 4, 3)} {
		cert := proofCertify(t, g, 64<<10)
		if _, err := cert.Verify(context.Background()); err != nil {
			t.Errorf("%s with a 64 KB table: %v", g.Spec(), err)
		}
	}
}

func TestProofCertificateTooBig(t *testing.T) {
	_, err := NewProofCertificate(context.Background(), NewProofSolver(MustNew(5, 5, 4), 16<<20), Position{}, 100, nil)
	if !errors.Is(err, ErrCertificateTooBig) {
		t.Errorf("5,5,4 within 100 positions: %v, want ErrCertificateTooBig", err)
	}
}

// A pairing where its own side is to move proves as much (the side moves
// anywhere first, and the pairs left still cover the lines): the pairing
// of X on the empty 5x5 board, X to move, stands for X's whole strategy.
func TestProofCertificatePairingOfTheSideToMove(t *testing.T) {
	g := MustNew(5, 5, 5)
	c := proofCertify(t, g, 1<<20)
	pairs, ok := NewProofSolver(g, 0).pairing(Position{}, true)
	if !ok {
		t.Fatal("5,5,5: no pairing of X on the empty board")
	}
	for _, st := range c.Strategies {
		if st.X {
			st.Moves = map[Position]int8{}
			st.Pairings = map[Position][]Pair{{}: nil}
			for _, pr := range pairs {
				st.Pairings[Position{}] = append(st.Pairings[Position{}], Pair{int8(bitIndex(pr)), int8(63 - bits.LeadingZeros64(pr))})
			}
		}
	}
	back, _ := text(t, c)
	if n, err := back.Verify(context.Background()); err != nil || n != 2 {
		t.Errorf("5,5,5 with X's pairing at the root: %d positions, %v; want 2 and nil", n, err)
	}
}

// refused checks that c fails to verify with ErrCertificate and a message
// holding want.
func refused(t *testing.T, name string, c *Certificate, want string) {
	t.Helper()
	_, err := c.Verify(context.Background())
	if !errors.Is(err, ErrCertificate) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want ErrCertificate with %q", name, err, want)
	}
}

// Certificates with pairings that do not prove their value fail, each
// with a message naming the position and what is wrong: a pairing that
// leaves a line without a pair, one on a taken cell or using a cell twice,
// a pairing where the other side already has four of five, a move
// missing, a move that throws the game away, a pairing in a strategy to
// win, a value the strategies do not prove.
func TestProofCertificateRefusesBadProofs(t *testing.T) {
	g := MustNew(6, 6, 5)
	orig := proofCertify(t, g, 16<<20)
	fresh := func() *Certificate { c, _ := text(t, orig); return c }
	if _, err := fresh().Verify(context.Background()); err != nil {
		t.Fatalf("6,6,5: %v", err)
	}
	withPairings := func(c *Certificate) *Strategy {
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
		taken := bitIndex(key.X | key.O)
		pairs[0][0] = int8(taken)
		refused(t, "a pair on a taken cell", c, fmt.Sprintf("pairs the cell %s, which is not an empty cell", cellName(taken)))
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
	g5 := MustNew(5, 5, 5)
	c5 := proofCertify(t, g5, 1<<20)
	root, err := g5.Parse("OOOO./X.X../..X../X..X./.....")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range c5.Strategies {
		if st.X {
			st.Pairings = map[Position][]Pair{}
			key, _ := g5.CanonicalSym(root)
			var pairs []Pair
			for _, pr := range proofCertify(t, g5, 1<<20).Strategies[0].Pairings[Position{}] {
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
	for _, cert := range []*Certificate{orig, proofCertify(t, MustNew(4, 4, 4), 1<<20), proofCertify(t, MustNew(3, 4, 3), 1<<20)} {
		for i, st := range cert.Strategies {
			for key, m := range st.Moves {
				for cell := range 64 {
					if int8(cell) == m || cert.Game.Empty(key)>>uint(cell)&1 == 0 {
						continue
					}
					c, _ := text(t, cert)
					c.Strategies[i].Moves[key] = int8(cell)
					_, err := c.Verify(context.Background())
					if err != nil && !errors.Is(err, ErrCertificate) {
						t.Errorf("%s, a move changed: %v, want ErrCertificate", cert.Game.Spec(), err)
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
	c.Value = Win
	refused(t, "a draw claimed as a win", c, "needs a strategy of X to win")
	c = fresh()
	c.Value = Loss
	refused(t, "a draw claimed as a loss", c, "needs a strategy of O to win")
	c = fresh()
	c.Value = Win
	for _, st := range c.Strategies {
		st.Win = true
	}
	refused(t, "strategies not to lose relabelled to win", c, "holds pairings")

	w := proofCertify(t, MustNew(4, 4, 3), 1<<20)
	w.Value = Drawn
	refused(t, "a win claimed as a draw", w, "needs a strategy of")
}

// Certificates of version 1 (moves only), as the build before pairings
// wrote them (testdata/*-v1.cert: analyze mnk solve --certificate at
// 60e82ba) and as the alpha-beta extraction still does, read and verify;
// pairings under a version 1 header are refused.
func TestCertificateVersions(t *testing.T) {
	for _, c := range []struct {
		file string
		v    Value
	}{{"testdata/333-v1.cert", Drawn}, {"testdata/343-v1.cert", Win}} {
		f, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := ReadCertificate(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if _, err := cert.Verify(context.Background()); err != nil || cert.Value != c.v {
			t.Errorf("%s: %v, %v; want %v proven", c.file, cert.Value, err, c.v)
		}
	}

	c := certify(t, MustNew(3, 4, 3))
	_, data := text(t, c)
	if !bytes.HasPrefix(data, []byte(certificateMagic+"\n")) {
		t.Errorf("a certificate without pairings starts %q, want %q", data[:30], certificateMagic)
	}
	p := proofCertify(t, MustNew(5, 5, 5), 1<<20)
	_, data = text(t, p)
	if !bytes.HasPrefix(data, []byte(certificateMagic2+"\n")) {
		t.Errorf("a certificate with pairings starts %q, want %q", data[:30], certificateMagic2)
	}
	old := strings.Replace(string(data), certificateMagic2, certificateMagic, 1)
	if _, err := ReadCertificate(strings.NewReader(old)); err == nil || !strings.Contains(err.Error(), "a pairing in a certificate of version 1") {
		t.Errorf("pairings under a version 1 header: %v, want an error", err)
	}
}

// The verifier's lines are the engine's windows, found apart.
func TestKLines(t *testing.T) {
	for r := 1; r <= MaxSide; r++ {
		for c := 1; c <= MaxSide; c++ {
			for k := 1; k <= max(r, c); k++ {
				g := MustNew(r, c, k)
				lines := kLines(r, c, k)
				want := map[uint64]bool{}
				for _, w := range g.windows {
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
		g := MustNew(c.r, c.c, c.k)
		p, err := g.Parse(c.board)
		if err != nil {
			t.Fatal(err)
		}
		att, def := p.X, p.O
		if !c.attX {
			att, def = def, att
		}
		if got := attackerHopeless(kLines(c.r, c.c, c.k), c.k, att, def, g.Empty(p), c.attToMove); got != c.want {
			t.Errorf("%s %s, attacker X %v to move %v: hopeless %v, want %v", g.Spec(), c.board, c.attX, c.attToMove, got, c.want)
		}
	}
}

// BenchmarkProofCertificate775 writes and verifies the certificate of the
// 7,7,5 draw: positions verified, bytes, seconds of each.
func BenchmarkProofCertificate775(b *testing.B) {
	g := MustNew(7, 7, 5)
	b.ReportAllocs()
	var write, verify time.Duration
	var positions, size int
	for b.Loop() {
		start := time.Now()
		c := proofCertify(b, g, 64<<20)
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			b.Fatal(err)
		}
		write += time.Since(start)
		start = time.Now()
		back, err := ReadCertificate(bytes.NewReader(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		if positions, err = back.Verify(context.Background()); err != nil {
			b.Fatal(err)
		}
		verify += time.Since(start)
		size = buf.Len()
	}
	b.ReportMetric(float64(positions), "positions")
	b.ReportMetric(float64(size), "bytes")
	b.ReportMetric(write.Seconds()/float64(b.N), "write-s/op")
	b.ReportMetric(verify.Seconds()/float64(b.N), "verify-s/op")
}
