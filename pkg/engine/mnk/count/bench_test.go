package count

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/woprlabs/wopr/internal/cputime"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

// benchCount counts the whole game with a fresh Counter, and its positions,
// per op, and reports tree nodes per second.
func benchCount(b *testing.B, g *mnk.Game, positions bool) {
	b.ReportAllocs()
	var nodes uint64
	cpu := cputime.Process()
	for b.Loop() {
		s := New(g).Count(mnk.Position{})
		if positions {
			Positions(g, mnk.Position{})
		}
		nodes += s.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	// The process's CPU time, steadier than the wall clock on a shared
	// machine (the collector's included).
	b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkCount333 is the full statistics of tic-tac-toe: Count and
// Positions from the empty board with a fresh Counter.
func BenchmarkCount333(b *testing.B) { benchCount(b, mnk.MustNew(3, 3, 3), true) }

// BenchmarkCount444 is the full statistics of 4,4,4; run it with
// -benchtime=1x.
func BenchmarkCount444(b *testing.B) { benchCount(b, mnk.MustNew(4, 4, 4), true) }

// BenchmarkCounter444 is Count alone for 4,4,4.
func BenchmarkCounter444(b *testing.B) { benchCount(b, mnk.MustNew(4, 4, 4), false) }

// BenchmarkCountPositions444 is Positions alone for 4,4,4; the
// reported nodes/s are orbits visited per second.
func BenchmarkCountPositions444(b *testing.B) {
	g := mnk.MustNew(4, 4, 4)
	b.ReportAllocs()
	var orbits uint64
	for b.Loop() {
		orbits += Positions(g, mnk.Position{}).Canonical
	}
	b.ReportMetric(float64(orbits)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkCountTasks444 counts the tasks of `mnk count --board 4x4` (the
// positions at ply 2) as a worker's slots do: goroutines take the next
// task from a shared list, each with its own Counter, whose memos are
// private (as each slot's was before memos could be shared) or one shared
// Memo. The ratio of the time of one goroutine to twice the time of two is
// the parallel efficiency of the count alone, without the runtime (on a
// machine with two idle cores).
func BenchmarkCountTasks444(b *testing.B) {
	g := mnk.MustNew(4, 4, 4)
	roots := ref.SplitPositions(g, 2)
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
						c = New(g)
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
