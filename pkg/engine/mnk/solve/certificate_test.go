package solve

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/cert"
)

func certify(t *testing.T, g *mnk.Game) *cert.Certificate {
	t.Helper()
	c, err := NewCertificate(context.Background(), New(g, 16<<20), mnk.Position{}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Certificates of known values verify, after a round trip through text.
func TestCertificateKnownValues(t *testing.T) {
	for _, c := range []struct {
		r, c, k int
		v       mnk.Value
		strats  int
	}{
		{3, 3, 3, mnk.Drawn, 2}, {3, 4, 3, mnk.Win, 1}, {4, 4, 3, mnk.Win, 1}, {4, 4, 4, mnk.Drawn, 2}, {2, 2, 2, mnk.Win, 1}, {1, 3, 1, mnk.Win, 1},
	} {
		g := mnk.MustNew(c.r, c.c, c.k)
		proof := certify(t, g)
		if proof.Value != c.v || len(proof.Strategies) != c.strats {
			t.Fatalf("%s: value %v with %d strategies, want %v with %d", g.Spec(), proof.Value, len(proof.Strategies), c.v, c.strats)
		}
		var buf bytes.Buffer
		if _, err := proof.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		back, err := cert.Read(strings.NewReader(text))
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", g.Spec(), err, text)
		}
		n, err := back.Verify(context.Background())
		if err != nil {
			t.Errorf("%s: %v", g.Spec(), err)
		}
		t.Logf("%s: %v, %d moves, %d bytes, %d positions verified", g.Spec(), proof.Value, proof.Size(), len(text), n)
	}
}

func TestCertificateTooBig(t *testing.T) {
	_, err := NewCertificate(context.Background(), New(mnk.MustNew(4, 4, 4), 16<<20), mnk.Position{}, 1000, nil)
	if !errors.Is(err, cert.ErrTooBig) {
		t.Errorf("4,4,4 within 1,000 positions: %v, want cert.ErrTooBig", err)
	}
}
