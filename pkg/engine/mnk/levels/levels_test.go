package levels

import (
	"context"
	"fmt"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
)

// total adds up the figures of every ply.
func total(plies []Stats) Stats {
	var t Stats
	for _, p := range plies {
		t.Add(p)
	}
	return t
}

func TestTicTacToe(t *testing.T) {
	b, err := NewBoard(3, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, shards := range []int{1, 3, 7} {
		plies, err := b.Local(context.Background(), shards, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := total(plies)
		got := fmt.Sprintf("nodes %v games %v/%v/%v positions %d canonical %d terminal %v canonical terminal %v canonical games %v",
			s.Nodes, s.Games[XWins], s.Games[OWins], s.Games[Draws], s.Positions, s.Canonical, s.Terminal, s.CanonicalTerminal, s.CanonicalGames)
		want := "nodes 549946 games 131184/77904/46080 positions 5478 canonical 765 terminal [626 316 16] canonical terminal [91 44 3] canonical games 26830"
		if got != want {
			t.Errorf("%d shards:\n got %s\nwant %s", shards, got, want)
		}
	}
}

// TestAgainstTreeCounter compares the level count with the tree counter
// of package count, field by field, on every board of up to 16 cells and
// every k.
func TestAgainstTreeCounter(t *testing.T) {
	for rows := 1; rows <= 16; rows++ {
		for cols := 1; rows*cols <= 16; cols++ {
			if rows > 8 || cols > 8 {
				continue // the tree counter's layout has 8 cells a side
			}
			for k := 1; k <= max(rows, cols); k++ {
				if testing.Short() && rows*cols > 12 {
					continue
				}
				t.Run(fmt.Sprintf("%dx%dk%d", rows, cols, k), func(t *testing.T) {
					t.Parallel()
					compareTree(t, rows, cols, k, 1+rows*cols%5, Options{})
				})
			}
		}
	}
}

func compareTree(t *testing.T, rows, cols, k, shards int, opt Options) {
	t.Helper()
	b, err := NewBoard(rows, cols, k)
	if err != nil {
		t.Fatal(err)
	}
	plies, err := b.Local(context.Background(), shards, opt)
	if err != nil {
		t.Fatal(err)
	}
	g := mnk.MustNew(rows, cols, k)
	st := count.New(g).Count(mnk.Position{})
	pc, err := count.PositionsContext(context.Background(), g, mnk.Position{})
	if err != nil {
		t.Fatal(err)
	}
	s := total(plies)
	check := func(what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	check("nodes", s.Nodes, st.Nodes)
	check("x wins", s.Games[XWins], st.XWins())
	check("o wins", s.Games[OWins], st.OWins())
	check("draws", s.Games[Draws], st.Draws)
	check("canonical games", s.CanonicalGames, st.CanonicalGames)
	check("positions", s.Positions, pc.Positions)
	check("canonical", s.Canonical, pc.Canonical)
	check("terminal", s.Terminal, [3]uint64{pc.Terminal[mnk.XWin], pc.Terminal[mnk.OWin], pc.Terminal[mnk.Draw]})
	check("canonical terminal", s.CanonicalTerminal, [3]uint64{pc.CanonicalTerminal[mnk.XWin], pc.CanonicalTerminal[mnk.OWin], pc.CanonicalTerminal[mnk.Draw]})
	for ply, p := range plies {
		check(fmt.Sprintf("positions of ply %d", ply), p.Positions, pc.ByPly[ply])
		games := p.Games[XWins].Add(p.Games[OWins])
		if ply == rows*cols {
			check(fmt.Sprintf("games of length %d", ply), games.Add(p.Games[Draws]), st.Wins[ply]+st.Draws)
		} else {
			check(fmt.Sprintf("games of length %d", ply), games, st.Wins[ply])
		}
	}
}

// TestSpill counts with a memory budget so small that every shard's
// children spill to disk many times: the figures do not change.
func TestSpill(t *testing.T) {
	dir := t.TempDir()
	for _, c := range [][4]int{{3, 3, 3, 2}, {3, 4, 3, 3}, {2, 6, 3, 1}} {
		t.Run(fmt.Sprintf("%dx%dk%d", c[0], c[1], c[2]), func(t *testing.T) {
			compareTree(t, c[0], c[1], c[2], c[3], Options{Memory: MinMemory, TempDir: dir})
		})
	}
	b, _ := NewBoard(3, 4, 3)
	plies, err := b.Local(context.Background(), 2, Options{Memory: MinMemory, TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s := total(plies); s.Spills == 0 {
		t.Errorf("3x4 with %d bytes spilled nothing", MinMemory)
	}
}

// TestGroupBytes checks the bound of a group's table against the figures
// the Memory option's comment gives.
func TestGroupBytes(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		want       int64
	}{{4, 5, 544 << 10}, {5, 5, 4352 << 10}, {3, 4, 8704}} {
		b, err := NewBoard(c.rows, c.cols, 3)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.groupBytes(); got != c.want {
			t.Errorf("%dx%d: groupBytes %d, want %d", c.rows, c.cols, got, c.want)
		}
	}
}

// TestChildrenTravelOnce checks what the sharding by the stones of the
// player who just moved is for: the pieces that the tasks of a ply write
// for one shard hold distinct positions, so that a child is sent once, its
// numbers whole, and the merge adds nothing up.
func TestChildrenTravelOnce(t *testing.T) {
	for _, c := range [][4]int{{3, 3, 3, 4}, {3, 4, 3, 5}, {4, 4, 3, 7}, {2, 5, 2, 3}} {
		b, err := NewBoard(c[0], c[1], c[2])
		if err != nil {
			t.Fatal(err)
		}
		shards := c[3]
		store := &MapStore{}
		ctx := context.Background()
		for ply := 0; ply < b.Cells(); ply++ {
			for shard := range shards {
				if ply == 0 && shard != RootShard(shards) {
					continue
				}
				if _, err := b.Run(ctx, store, Task{Ply: ply, Shard: shard, Shards: shards, Prefix: "t"}, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			next := Task{Ply: ply + 1, Shards: shards}
			for dest := range shards {
				seen := map[Key]bool{}
				for _, src := range next.Sources() {
					data, err := store.Get(ctx, PieceName("t", ply+1, dest, src))
					if err != nil {
						t.Fatal(err)
					}
					r, err := newByteRun(data)
					if err != nil {
						t.Fatal(err)
					}
					for {
						rec, ok, err := r.next()
						if err != nil {
							t.Fatal(err)
						}
						if !ok {
							break
						}
						if seen[rec.Key] {
							t.Fatalf("%dx%d k=%d ply %d: position %s reaches shard %d from two tasks", c[0], c[1], c[2], ply+1, b.String(rec.Key, ply+1), dest)
						}
						if ShardOf(rec.Key, shards) != dest {
							t.Fatalf("%dx%d k=%d ply %d: position %s went to shard %d, not its own", c[0], c[1], c[2], ply+1, b.String(rec.Key, ply+1), dest)
						}
						seen[rec.Key] = true
					}
				}
			}
		}
	}
}
