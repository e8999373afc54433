package pns

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// TestTableResumes: a proof stopped half way, its table saved and loaded
// into a new table (another process), goes on from where it stopped: the
// search after the load takes about the half that was left, not the whole
// proof again, and finds the same value. The table loaded is the one saved,
// entry for entry.
func TestTableResumes(t *testing.T) {
	race.SkipSerial(t)
	ctx := context.Background()
	for _, b := range []struct {
		m, n, k int
		want    mnk.Value
	}{{5, 5, 4, mnk.Drawn}, {6, 5, 4, mnk.Win}, {7, 7, 5, mnk.Drawn}} {
		g := mnk.MustNew(b.m, b.n, b.k)
		whole := NewTable(g, 16<<20).NewSolver()
		whole.SetZones(true)
		if v, err := whole.Solve(ctx, mnk.Position{}); err != nil || v != b.want {
			t.Fatalf("%s: %v (%v), want %v", g.Spec(), v, err, b.want)
		}
		first := NewTable(g, 16<<20)
		stopped := first.NewSolver()
		stopped.SetZones(true)
		stopped.SetNodeLimit(whole.Nodes() / 2)
		if _, err := stopped.Solve(ctx, mnk.Position{}); !errors.Is(err, mnk.ErrNodeLimit) {
			t.Fatalf("%s stopped at half: %v, want ErrNodeLimit", g.Spec(), err)
		}
		var saved bytes.Buffer
		if _, err := first.WriteTo(&saved); err != nil {
			t.Fatal(err)
		}
		second := NewTable(g, 16<<20)
		if _, err := second.ReadFrom(bytes.NewReader(saved.Bytes())); err != nil {
			t.Fatalf("%s: %v", g.Spec(), err)
		}
		for i := range first.entries {
			if first.entries[i] != second.entries[i] {
				t.Fatalf("%s: entry %d loaded as %+v, saved %+v", g.Spec(), i, second.entries[i], first.entries[i])
			}
		}
		resumed := second.NewSolver()
		resumed.SetZones(true)
		v, err := resumed.Solve(ctx, mnk.Position{})
		if err != nil || v != b.want || resumed.Nodes() > whole.Nodes()*3/4 {
			t.Errorf("%s resumed: %v (%v) in %d nodes; want %v in about the %d left of %d", g.Spec(), v, err, resumed.Nodes(), b.want, whole.Nodes()-stopped.Nodes(), whole.Nodes())
		}
		t.Logf("%s: whole proof %d nodes; stopped at %d, %d bytes saved; resumed %d nodes", g.Spec(), whole.Nodes(), stopped.Nodes(), saved.Len(), resumed.Nodes())
	}
}

// A saved table of another game or size is refused as such; one cut short
// or with a byte changed is refused, and leaves the table empty.
func TestTableReadRefuses(t *testing.T) {
	ctx := context.Background()
	g := mnk.MustNew(5, 5, 4)
	tab := NewTable(g, 1<<20)
	s := tab.NewSolver()
	s.SetNodeLimit(5000)
	s.Solve(ctx, mnk.Position{})
	var saved bytes.Buffer
	if _, err := tab.WriteTo(&saved); err != nil {
		t.Fatal(err)
	}
	if _, err := NewTable(mnk.MustNew(5, 5, 5), 1<<20).ReadFrom(bytes.NewReader(saved.Bytes())); !errors.Is(err, ErrTableMismatch) {
		t.Errorf("another game: %v, want ErrTableMismatch", err)
	}
	if _, err := NewTable(g, 2<<20).ReadFrom(bytes.NewReader(saved.Bytes())); !errors.Is(err, ErrTableMismatch) {
		t.Errorf("another size: %v, want ErrTableMismatch", err)
	}
	for name, data := range map[string][]byte{
		"cut short":       saved.Bytes()[:saved.Len()/2],
		"without its sum": saved.Bytes()[:saved.Len()-32],
		"a byte changed": func() []byte {
			d := bytes.Clone(saved.Bytes())
			d[len(d)/2] ^= 1
			return d
		}(),
		"not a table": []byte("wopr mnk certificate 3\n"),
	} {
		into := NewTable(g, 1<<20)
		if _, err := into.ReadFrom(bytes.NewReader(data)); err == nil || into.Entries() != 0 {
			t.Errorf("%s: %v with %d entries loaded; want an error and none", name, err, into.Entries())
		}
	}
}
