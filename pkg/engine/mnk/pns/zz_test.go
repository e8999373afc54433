package pns

import (
	"context"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

func TestZZ885Long(t *testing.T) {
	g := mnk.MustNew(8, 8, 5)
	s := New(g, 1<<30)
	s.SetZones(true)
	s.SetMatching(true)
	t0 := time.Now()
	for _, n := range []uint64{1_240_000, 6_000_000, 12_000_000, 24_000_000} {
		s.SetNodeLimit(n)
		win, err := s.Prove(context.Background(), mnk.Position{}, true)
		pn, dn := s.RootNumbers()
		t.Logf("%d nodes (%.0f s): %v %v root pn %d dn %d entries %d", s.Nodes(), time.Since(t0).Seconds(), win, err, pn, dn, s.Table().Entries())
	}
}
