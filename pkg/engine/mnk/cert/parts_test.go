package cert_test

import (
	"bytes"
	"context"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/cert"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
)

// inParts builds the certificate of the draw of g as a job builds it in
// parts: X's strategy not to lose from the empty board, and O's as a part
// from each first move of X up to symmetry, each extracted by a solver of
// its own (pns.NewStrategy). It returns the certificate and the first
// moves' positions.
func inParts(t *testing.T, g *mnk.Game) (*cert.Certificate, []mnk.Position) {
	t.Helper()
	ctx := context.Background()
	x, ok, err := pns.NewStrategy(ctx, pns.New(g, 16<<20), mnk.Position{}, true, false, 0, nil)
	if err != nil || !ok {
		t.Fatalf("%s: X's strategy not to lose: %v, %v", g.Spec(), ok, err)
	}
	o := &cert.Strategy{Moves: map[mnk.Position]int8{}, Parts: map[mnk.Position]*cert.Strategy{}}
	var first []mnk.Position
	seen := map[mnk.Position]bool{}
	for e := g.Empty(mnk.Position{}); e != 0; e &= e - 1 {
		p, _ := g.Play(mnk.Position{}, bits.TrailingZeros64(e))
		p, _ = g.Canonical(p)
		if seen[p] {
			continue
		}
		seen[p] = true
		first = append(first, p)
		part, ok, err := pns.NewStrategy(ctx, pns.New(g, 16<<20), p, false, false, 0, nil)
		if err != nil || !ok {
			t.Fatalf("%s: O's part from %s: %v, %v", g.Spec(), g.String(p), ok, err)
		}
		o.Parts[p] = part
	}
	return &cert.Certificate{Game: g, Value: mnk.Drawn, Strategies: []*cert.Strategy{x, o}}, first
}

// TestCertificateInParts: a draw proven with O's strategy in parts, one
// from each first move of X, verifies, goes through its text (version 4)
// unchanged, and is refused, naming what is wrong, with a part missing, a
// part of the other side, a part of another goal, a part that holds parts,
// a move of a part changed, or under the header of an older version.
func TestCertificateInParts(t *testing.T) {
	race.SkipSerial(t)
	ctx := context.Background()
	for _, spec := range [][3]int{{4, 4, 4}, {5, 5, 4}, {6, 6, 5}, {7, 7, 5}} {
		if testing.Short() && spec[0] == 7 {
			continue // -short: 7,7,5's parts take a second, ten under -race
		}
		g := mnk.MustNew(spec[0], spec[1], spec[2])
		c, first := inParts(t, g)
		n, err := c.Verify(ctx)
		if err != nil {
			t.Fatalf("%s: %v", g.Spec(), err)
		}
		back, data := text(t, c)
		if !bytes.HasPrefix(data, []byte("wopr mnk certificate 4\n")) || back.Parts() != len(first) || back.Size() != c.Size() || back.Pairings() != c.Pairings() {
			t.Errorf("%s: read back %d parts, %d moves, %d pairings, want %d, %d, %d, version 4", g.Spec(), back.Parts(), back.Size(), back.Pairings(), len(first), c.Size(), c.Pairings())
		}
		if _, again := text(t, back); !bytes.Equal(again, data) {
			t.Errorf("%s: written, read and written again: another text", g.Spec())
		}
		t.Logf("%s: %d parts, %d moves, %d pairings, %d matchings, %d bytes, %d positions verified", g.Spec(), c.Parts(), c.Size(), c.Pairings(), c.Matchings(), len(data), n)

		o := func(c *cert.Certificate) *cert.Strategy { return c.Strategies[1] }
		fresh := func() *cert.Certificate { b, _ := text(t, c); return b }
		missing := fresh()
		delete(o(missing).Parts, first[0])
		refused(t, g.Spec()+": a part missing", missing, "has no move at")
		other := fresh()
		o(other).Parts[first[0]].X = true
		refused(t, g.Spec()+": a part of X", other, "is not one of X to not-lose")
		goal := fresh()
		o(goal).Parts[first[0]].Win = true
		refused(t, g.Spec()+": a part to win", goal, "is not one of O to win")
		nested := fresh()
		o(nested).Parts[first[0]].Parts = map[mnk.Position]*cert.Strategy{first[1]: o(nested).Parts[first[1]]}
		refused(t, g.Spec()+": a part in parts", nested, "without parts")
		changed := fresh()
		for _, part := range o(changed).Parts {
			for p, m := range part.Moves {
				// Move to the first other empty cell.
				for e := g.Empty(p); e != 0; e &= e - 1 {
					if cell := bits.TrailingZeros64(e); cell != int(m) {
						part.Moves[p] = int8(cell)
						break
					}
				}
			}
		}
		if _, err := changed.Verify(ctx); !errors.Is(err, cert.ErrInvalid) {
			t.Errorf("%s: every move of O's parts moved: %v, want cert.ErrInvalid", g.Spec(), err)
		}
		old := strings.Replace(string(data), "wopr mnk certificate 4", "wopr mnk certificate 3", 1)
		if _, err := cert.Read(strings.NewReader(old)); err == nil || !strings.Contains(err.Error(), "a strategy in parts in a certificate of version 3") {
			t.Errorf("%s: parts under a version 3 header: %v, want an error", g.Spec(), err)
		}
	}
}

// TestReadPartsErrors: a damaged text of parts is refused naming the line.
func TestReadPartsErrors(t *testing.T) {
	g := mnk.MustNew(4, 4, 4)
	c, _ := inParts(t, g)
	_, data := text(t, c)
	lines := strings.Split(string(data), "\n")
	var part int
	for i, l := range lines {
		if strings.HasPrefix(l, "part ") {
			part = i
			break
		}
	}
	for _, bad := range []struct{ name, text, want string }{
		{"a part line damaged", strings.Replace(string(data), lines[part], "part zz", 1), "want \"part X O N\""},
		{"the file cut before a part", strings.Join(lines[:part], "\n") + "\n", "the file ends before part"},
		{"a part twice", twice(lines, part), "a second part from the position"},
	} {
		if _, err := cert.Read(strings.NewReader(bad.text)); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: %v, want an error naming the line with %q", bad.name, err, bad.want)
		}
	}
}

// twice is the text of lines with the part at line part twice, and its
// strategy's header counting one more part.
func twice(lines []string, part int) string {
	block := lines[part : part+1+partSize(lines[part])]
	var out []string
	for i, l := range lines {
		if f := strings.Fields(l); len(f) == 6 && f[0] == "strategy" && i < part {
			n := partSize(l)
			l = strings.Join(f[:5], " ") + " " + strconv.Itoa(n+1)
		}
		out = append(out, l)
		if i == part+len(block)-1 {
			out = append(out, block...)
		}
	}
	return strings.Join(out, "\n")
}

// partSize is the last number of a line such as "part X O N".
func partSize(line string) int {
	f := strings.Fields(line)
	n, _ := strconv.Atoi(f[len(f)-1])
	return n
}

// TestStrategyText: a strategy goes through WriteStrategy and
// ReadStrategy unchanged; a strategy in parts is not written; a text that
// goes on past the strategy is refused.
func TestStrategyText(t *testing.T) {
	race.SkipSerial(t)
	g := mnk.MustNew(5, 5, 4)
	c := proofCertify(t, g, 16<<20)
	for _, st := range c.Strategies {
		var buf bytes.Buffer
		if _, err := cert.WriteStrategy(&buf, st); err != nil {
			t.Fatal(err)
		}
		back, err := cert.ReadStrategy(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		cert.WriteStrategy(&again, back)
		if !bytes.Equal(again.Bytes(), buf.Bytes()) || back.X != st.X || back.Win != st.Win {
			t.Errorf("strategy of %s: read back another", st.Side())
		}
		if _, err := cert.ReadStrategy(strings.NewReader(buf.String() + "strategy X win 0\n")); err == nil || !strings.Contains(err.Error(), "want the end of the strategy") {
			t.Errorf("a text past the strategy: %v", err)
		}
	}
	if _, err := cert.WriteStrategy(&bytes.Buffer{}, &cert.Strategy{Parts: map[mnk.Position]*cert.Strategy{{}: {}}}); err == nil {
		t.Errorf("a strategy in parts written by WriteStrategy")
	}
}

// TestBuildIsWhatVerifyReaches: a certificate that Build completes holds
// only what Verify reaches (Prune removes nothing), and verifies.
func TestBuildIsWhatVerifyReaches(t *testing.T) {
	race.SkipSerial(t)
	for _, spec := range [][3]int{{4, 4, 4}, {5, 5, 4}, {6, 5, 4}, {7, 7, 5}} {
		g := mnk.MustNew(spec[0], spec[1], spec[2])
		c := proofCertify(t, g, 16<<20)
		size, pairings := c.Size(), c.Pairings()
		removed, err := c.Prune(context.Background())
		if err != nil || removed != 0 || c.Size() != size || c.Pairings() != pairings {
			t.Errorf("%s: Prune removed %d (%v), want nothing", g.Spec(), removed, err)
		}
	}
}
