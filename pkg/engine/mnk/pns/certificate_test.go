package pns

import (
	"bytes"
	"context"
	"errors"
	"math/bits"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/cert"
)

func proofCertify(tb testing.TB, g *mnk.Game, ttBytes int) *cert.Certificate {
	tb.Helper()
	c, err := NewCertificate(context.Background(), New(g, ttBytes), mnk.Position{}, 0, nil)
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

// Certificates from the proof-number solver verify after a round trip
// through text, with the known values, on boards beyond the alpha-beta
// solver's 36 cells too; the k = 5 draws end in pairings, the wins have
// none.
func TestProofCertificateKnownValues(t *testing.T) {
	race.SkipSerial(t)
	for _, c := range []struct {
		r, c, k  int
		v        mnk.Value
		pairings bool
	}{
		{3, 3, 3, mnk.Drawn, true}, {3, 4, 3, mnk.Win, false}, {4, 4, 3, mnk.Win, false}, {4, 4, 4, mnk.Drawn, true},
		{5, 5, 4, mnk.Drawn, true}, {6, 5, 4, mnk.Win, false}, {2, 2, 2, mnk.Win, false}, {1, 3, 1, mnk.Win, false},
		{5, 5, 5, mnk.Drawn, true}, {6, 6, 5, mnk.Drawn, true}, {7, 7, 5, mnk.Drawn, true},
	} {
		g := mnk.MustNew(c.r, c.c, c.k)
		start := time.Now()
		proof := proofCertify(t, g, 16<<20)
		took := time.Since(start)
		if proof.Value != c.v || (proof.Pairings() > 0) != c.pairings {
			t.Errorf("%s: value %v with %d pairings, want %v (pairings: %v)", g.Spec(), proof.Value, proof.Pairings(), c.v, c.pairings)
		}
		back, data := text(t, proof)
		start = time.Now()
		n, err := back.Verify(context.Background())
		if err != nil {
			t.Errorf("%s: %v", g.Spec(), err)
		}
		t.Logf("%s: %v, %d moves, %d pairings, %d bytes, written in %v, %d positions verified in %v",
			g.Spec(), proof.Value, proof.Size(), proof.Pairings(), len(data), took, n, time.Since(start))
	}
}

// A table too small to keep the proof makes the extraction prove positions
// again, and the certificate still verifies.
func TestProofCertificateSmallTable(t *testing.T) {
	for _, g := range []*mnk.Game{mnk.MustNew(5, 5, 4), mnk.MustNew(6, 6, 5), mnk.MustNew(4, 4, 3)} {
		proof := proofCertify(t, g, 64<<10)
		if _, err := proof.Verify(context.Background()); err != nil {
			t.Errorf("%s with a 64 KB table: %v", g.Spec(), err)
		}
	}
}

func TestProofCertificateTooBig(t *testing.T) {
	_, err := NewCertificate(context.Background(), New(mnk.MustNew(5, 5, 4), 16<<20), mnk.Position{}, 100, nil)
	if !errors.Is(err, cert.ErrTooBig) {
		t.Errorf("5,5,4 within 100 positions: %v, want cert.ErrTooBig", err)
	}
}

// A pairing where its own side is to move proves as much (the side moves
// anywhere first, and the pairs left still cover the lines): the pairing
// of X on the empty 5x5 board, X to move, stands for X's whole strategy.
func TestProofCertificatePairingOfTheSideToMove(t *testing.T) {
	g := mnk.MustNew(5, 5, 5)
	c := proofCertify(t, g, 1<<20)
	pairs, ok := New(g, 0).pairing(mnk.Position{}, true)
	if !ok {
		t.Fatal("5,5,5: no pairing of X on the empty board")
	}
	for _, st := range c.Strategies {
		if st.X {
			st.Moves = map[mnk.Position]int8{}
			st.Pairings = map[mnk.Position][]cert.Pair{{}: nil}
			for _, pr := range pairs {
				st.Pairings[mnk.Position{}] = append(st.Pairings[mnk.Position{}], cert.Pair{int8(bitIndex(pr)), int8(63 - bits.LeadingZeros64(pr))})
			}
		}
	}
	back, _ := text(t, c)
	if n, err := back.Verify(context.Background()); err != nil || n != 2 {
		t.Errorf("5,5,5 with X's pairing at the root: %d positions, %v; want 2 and nil", n, err)
	}
}

// BenchmarkProofCertificate775 writes and verifies the certificate of the
// 7,7,5 draw: positions verified, bytes, seconds of each.
func BenchmarkProofCertificate775(b *testing.B) {
	g := mnk.MustNew(7, 7, 5)
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
		back, err := cert.Read(bytes.NewReader(buf.Bytes()))
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

// Certificates of a solver with set matching end lines at matchings where
// no pairing is found; they verify after a round trip through text (a
// certificate of version 3), and are smaller than without; a matching
// with a cell taken out of a block is refused, naming the position.
func TestProofCertificateMatchings(t *testing.T) {
	race.SkipSerial(t)
	for _, b := range [][3]int{{4, 5, 4}, {5, 5, 4}} {
		g := mnk.MustNew(b[0], b[1], b[2])
		s := New(g, 16<<20)
		s.SetMatching(true)
		c, err := NewCertificate(context.Background(), s, mnk.Position{}, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		plain := proofCertify(t, g, 16<<20)
		back, data := text(t, c)
		n, err := back.Verify(context.Background())
		if err != nil || c.Matchings() == 0 || !bytes.HasPrefix(data, []byte("wopr mnk certificate 3\n")) {
			t.Fatalf("%s: %d matchings, %v; want some, a certificate of version 3 that verifies", g.Spec(), c.Matchings(), err)
		}
		t.Logf("%s: %d moves, %d pairings, %d matchings, %d bytes, %d positions verified; without matchings %d moves, %d pairings",
			g.Spec(), c.Size(), c.Pairings(), c.Matchings(), len(data), n, plain.Size(), plain.Pairings())
		// A block with a taken cell, and a matching without blocks, are
		// refused, naming the position.
		for _, corrupt := range []func(p mnk.Position, blocks [][]int8) [][]int8{
			func(p mnk.Position, blocks [][]int8) [][]int8 {
				taken := int8(bitIndex(p.X | p.O))
				return append([][]int8{append([]int8{taken}, blocks[0]...)}, blocks[1:]...)
			},
			func(mnk.Position, [][]int8) [][]int8 { return nil },
		} {
			back, _ := text(t, c)
			var at mnk.Position
			for _, st := range back.Strategies {
				for k := range st.Matchings {
					if k.X|k.O != 0 && (at == mnk.Position{} || k.X < at.X || k.X == at.X && k.O < at.O) {
						at = k
					}
				}
			}
			for _, st := range back.Strategies {
				if blocks, ok := st.Matchings[at]; ok {
					st.Matchings[at] = corrupt(at, blocks)
				}
			}
			_, err := back.Verify(context.Background())
			if !errors.Is(err, cert.ErrInvalid) || !strings.Contains(err.Error(), "the matching of") || !strings.Contains(err.Error(), g.String(at)) {
				t.Errorf("%s: the matching at %s corrupted: %v, want it refused, naming the position", g.Spec(), g.String(at), err)
			}
		}
	}
}

// TestNewStrategy: a strategy is extracted where its goal holds, and
// verifies from its root on its own; where the goal does not hold there
// is none.
func TestNewStrategy(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		m, n, k int
		x, win  bool
		ok      bool
	}{
		{4, 4, 4, true, true, false}, {4, 4, 4, false, false, true}, {4, 4, 4, true, false, true},
		{5, 5, 4, false, true, false}, {5, 5, 4, false, false, true},
		{6, 5, 4, true, true, true}, {6, 5, 4, false, false, false},
	} {
		g := mnk.MustNew(c.m, c.n, c.k)
		st, ok, err := NewStrategy(ctx, New(g, 16<<20), mnk.Position{}, c.x, c.win, 0, nil)
		if err != nil || ok != c.ok || (st != nil) != c.ok {
			t.Errorf("%s x=%v win=%v: %v, %v, want %v", g.Spec(), c.x, c.win, ok, err, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if st.X != c.x || st.Win != c.win {
			t.Errorf("%s: a strategy of %s to %s", g.Spec(), st.Side(), st.Goal())
		}
		if n, _, err := cert.CheckStrategy(ctx, g, mnk.Position{}, st, nil); err != nil || n == 0 {
			t.Errorf("%s: the strategy of %s to %s: %d positions, %v", g.Spec(), st.Side(), st.Goal(), n, err)
		}
	}
}
