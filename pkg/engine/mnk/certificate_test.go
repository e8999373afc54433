package mnk

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func certify(t *testing.T, g *Game) *Certificate {
	t.Helper()
	c, err := NewCertificate(context.Background(), NewSolver(g, 16<<20), Position{}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Certificates of known values verify, after a round trip through text.
func TestCertificateKnownValues(t *testing.T) {
	for _, c := range []struct {
		r, c, k int
		v       Value
		strats  int
	}{
		{3, 3, 3, Drawn, 2}, {3, 4, 3, Win, 1}, {4, 4, 3, Win, 1}, {4, 4, 4, Drawn, 2}, {2, 2, 2, Win, 1}, {1, 3, 1, Win, 1},
	} {
		g := MustNew(c.r, c.c, c.k)
		cert := certify(t, g)
		if cert.Value != c.v || len(cert.Strategies) != c.strats {
			t.Fatalf("%s: value %v with %d strategies, want %v with %d", g.Spec(), cert.Value, len(cert.Strategies), c.v, c.strats)
		}
		var buf bytes.Buffer
		if _, err := cert.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		back, err := ReadCertificate(strings.NewReader(text))
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", g.Spec(), err, text)
		}
		n, err := back.Verify(context.Background())
		if err != nil {
			t.Errorf("%s: %v", g.Spec(), err)
		}
		t.Logf("%s: %v, %d moves, %d bytes, %d positions verified", g.Spec(), cert.Value, cert.Size(), len(text), n)
	}
}

// Certificates that do not prove their value fail: a move missing, a move
// that throws the game away, a value claimed that the strategies do not
// give, a strategy missing.
func TestCertificateRefusesBadProofs(t *testing.T) {
	g := MustNew(3, 3, 3)
	fresh := func() *Certificate { return certify(t, g) }
	check := func(name string, c *Certificate) {
		t.Helper()
		if _, err := c.Verify(context.Background()); !errors.Is(err, ErrCertificate) {
			t.Errorf("%s: %v, want ErrCertificate", name, err)
		}
	}
	c := fresh()
	for k := range c.Strategies[0].Moves {
		if k == (Position{}) {
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
			cell = Cell(cell/3, cell%3)
			if int8(cell) == m || (k.X|k.O)>>cell&1 != 0 {
				continue
			}
			c.Strategies[1].Moves[k] = int8(cell)
			if _, err := c.Verify(context.Background()); errors.Is(err, ErrCertificate) {
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
	c.Value = Win
	c.Strategies[0].Win = true
	c.Strategies = c.Strategies[:1]
	check("a draw's strategy of X claimed as a win", c)

	c = fresh()
	c.Strategies = c.Strategies[1:]
	check("a draw with one strategy", c)
}

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
		if _, err := ReadCertificate(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.text, err, c.want)
		}
	}
}

func TestCertificateTooBig(t *testing.T) {
	_, err := NewCertificate(context.Background(), NewSolver(MustNew(4, 4, 4), 16<<20), Position{}, 1000, nil)
	if !errors.Is(err, ErrCertificateTooBig) {
		t.Errorf("4,4,4 within 1,000 positions: %v, want ErrCertificateTooBig", err)
	}
}
