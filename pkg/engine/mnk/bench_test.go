package mnk

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/woprlabs/wopr/internal/cputime"
)

// benchCount counts the whole game with a fresh Counter, and its positions,
// per op, and reports tree nodes per second.
func benchCount(b *testing.B, g *Game, positions bool) {
	b.ReportAllocs()
	var nodes uint64
	cpu := cputime.Process()
	for b.Loop() {
		s := NewCounter(g).Count(Position{})
		if positions {
			g.CountPositions(Position{})
		}
		nodes += s.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	// The process's CPU time, steadier than the wall clock on a shared
	// machine (the collector's included).
	b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkCount333 is the full statistics of tic-tac-toe: Count and
// CountPositions from the empty board with a fresh Counter.
func BenchmarkCount333(b *testing.B) { benchCount(b, MustNew(3, 3, 3), true) }

// BenchmarkCount444 is the full statistics of 4,4,4; run it with
// -benchtime=1x.
func BenchmarkCount444(b *testing.B) { benchCount(b, MustNew(4, 4, 4), true) }

// BenchmarkCounter444 is Count alone for 4,4,4.
func BenchmarkCounter444(b *testing.B) { benchCount(b, MustNew(4, 4, 4), false) }

// BenchmarkCountPositions444 is CountPositions alone for 4,4,4; the
// reported nodes/s are orbits visited per second.
func BenchmarkCountPositions444(b *testing.B) {
	g := MustNew(4, 4, 4)
	b.ReportAllocs()
	var orbits uint64
	for b.Loop() {
		orbits += g.CountPositions(Position{}).Canonical
	}
	b.ReportMetric(float64(orbits)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkMakeUnmake is a plain depth-first walk of 4,4,4 to depth 5 with
// Board (about 600k nodes per op).
func BenchmarkMakeUnmake(b *testing.B) {
	g := MustNew(4, 4, 4)
	bd := NewBoard(g)
	var bufs [6][64]int
	var walk func(depth int) uint64
	walk = func(depth int) uint64 {
		if depth == 0 {
			return 1
		}
		n := uint64(1)
		for _, m := range bd.Moves(bufs[depth][:0]) {
			if bd.Make(m) == Ongoing {
				n += walk(depth - 1)
			} else {
				n++
			}
			bd.Unmake()
		}
		return n
	}
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += walk(5)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkCanonical canonicalises random 4x4 positions.
func BenchmarkCanonical(b *testing.B) {
	g := MustNew(4, 4, 4)
	rng := rand.New(rand.NewPCG(1, 1))
	ps := make([]Position, 1024)
	for i := range ps {
		ps[i], _ = randomGame(g, rng, rng.IntN(12))
	}
	b.ReportAllocs()
	var sink int
	n := 0
	for b.Loop() {
		_, orbit := g.Canonical(ps[n&1023])
		sink += orbit
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "nodes/s")
	_ = sink
}

// splitPositions returns the canonical, unfinished positions at ply depth
// of g, in a fixed order: the roots of a count job's tasks.
func splitPositions(g *Game, depth int) []Position {
	layer := []Position{{}}
	for range depth {
		seen := map[Position]bool{}
		var next []Position
		for _, p := range layer {
			for e := g.Empty(p); e != 0; e &= e - 1 {
				q, r := g.Play(p, bits.TrailingZeros64(e))
				q, _ = g.Canonical(q)
				if r == Ongoing && !seen[q] {
					seen[q] = true
					next = append(next, q)
				}
			}
		}
		layer = next
	}
	slices.SortFunc(layer, func(a, b Position) int {
		if c := cmp.Compare(a.X, b.X); c != 0 {
			return c
		}
		return cmp.Compare(a.O, b.O)
	})
	return layer
}

// BenchmarkCountTasks444 counts the tasks of `mnk count --board 4x4` (the
// positions at ply 2) as a worker's slots do: goroutines take the next
// task from a shared list, each with its own Counter, whose memos are
// private (as each slot's was before memos could be shared) or one shared
// Memo. The ratio of the time of one goroutine to twice the time of two is
// the parallel efficiency of the count alone, without the runtime (on a
// machine with two idle cores).
func BenchmarkCountTasks444(b *testing.B) {
	g := MustNew(4, 4, 4)
	roots := splitPositions(g, 2)
	for _, bc := range []struct {
		name       string
		goroutines int
		shared     bool
	}{{"1", 1, true}, {"2-private", 2, false}, {"2-shared", 2, true}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var nodes atomic.Uint64
			positions := 0
			cpu := cputime.Process()
			for b.Loop() {
				memo := NewMemo(g)
				var next atomic.Int64
				var wg sync.WaitGroup
				counters := make([]*Counter, bc.goroutines)
				for w := range counters {
					c := memo.NewCounter()
					if !bc.shared {
						c = NewCounter(g)
					}
					counters[w] = c
					wg.Go(func() {
						for i := next.Add(1) - 1; i < int64(len(roots)); i = next.Add(1) - 1 {
							nodes.Add(c.Count(roots[i]).Nodes)
						}
					})
				}
				wg.Wait()
				for _, c := range counters {
					positions += int(c.recounted)
					if !bc.shared {
						positions += c.MemoEntries()
					}
				}
				if bc.shared {
					positions += memo.Entries()
				}
			}
			b.ReportMetric(float64(nodes.Load())/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			// Positions counted: what the memos hold (with private
			// memos, those of one memo that the others hold too are
			// counted again), and those counted again that a shared memo
			// dropped because another Counter had inserted them first.
			b.ReportMetric(float64(positions)/float64(b.N), "positions/op")
		})
	}
}
