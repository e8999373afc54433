package count

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

// TestDFSReference compares the Counter with plain enumeration of every
// path, and the canonical games with a memo-free walk of distinct child
// orbits.
func TestDFSReference(t *testing.T) {
	games := ref.SmallGames()
	games = append(games, ref.New(3, 4, 3))
	for _, r := range games {
		t.Run(ref.Name(r), func(t *testing.T) {
			if r.Cells() > 9 && testing.Short() {
				t.Skip("277M paths; 3,3,3 covers the same code under -short")
			}
			var want ref.Counts
			want.Value = r.DFS(mnk.Position{}, 0, mnk.Ongoing, &want)
			want.HasValue = true
			if r.Cells() <= 9 {
				want.CanonicalGames = r.CanonicalGames(mnk.Position{}, mnk.Ongoing)
				want.HasCG = true
			}
			compareCounts(t, ref.Name(r), engineCounts(mnk.MustNew(r.M, r.N, r.K), mnk.Position{}), want)
		})
	}
}

// TestForwardReference compares the Counter and Positions with layer
// by layer counting from the empty board, and the value with a memoised
// negamax.
func TestForwardReference(t *testing.T) {
	race.SkipSerial(t)
	games := ref.SmallGames()
	games = append(games, ref.Games("3,4,3 4,3,3 3,4,4 4,4,4 4,4,3")...)
	for _, r := range games {
		t.Run(ref.Name(r), func(t *testing.T) {
			if r.Cells() > 12 && testing.Short() {
				t.Skip("deep case; 3,4,3 and 4,3,3 cover the same code under -short")
			}
			want := r.Forward()
			want.Value = r.Value(mnk.Position{}, mnk.Ongoing, map[mnk.Position]mnk.Value{})
			want.HasValue = true
			compareCounts(t, ref.Name(r), engineCounts(mnk.MustNew(r.M, r.N, r.K), mnk.Position{}), want)
		})
	}
}

// TestCountMidgame counts from random positions, not canonical, with one
// Counter reused across calls, against plain enumeration and against a fresh
// Counter on a symmetric image.
func TestCountMidgame(t *testing.T) {
	race.SkipSerial(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range ref.Games("3,3,3 3,4,3 4,3,3 4,4,4 4,4,3 2,5,3") {
		g := mnk.MustNew(r.M, r.N, r.K)
		c := New(g)
		for i := range 12 {
			p, res := ref.RandomGame(g, rng, max(0, g.Cells()-5-i%4))
			var want ref.Counts
			want.Value = r.DFS(p, p.Ply(), res, &want)
			want.HasValue = true
			s := c.Count(p)
			got := ref.Counts{Nodes: s.Nodes, Draws: s.Draws, Wins: s.Wins, Value: s.Value, HasValue: true}
			name := fmt.Sprintf("%s %s", ref.Name(r), g.String(p))
			compareCounts(t, name, got, want)
			img := g.Transform(p, rng.IntN(g.NumSymmetries()))
			if s2 := New(g).Count(img); s2 != s {
				t.Errorf("%s: Count of image %s = %+v, want %+v", name, g.String(img), s2, s)
			}
			if res == mnk.Ongoing {
				want := r.CanonicalGames(p, res)
				if s.CanonicalGames != want {
					t.Errorf("%s: canonical games = %d, want %d", name, s.CanonicalGames, want)
				}
			}
		}
	}
}

// TestCountTerminal checks Count on terminal positions.
func TestCountTerminal(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	for _, tc := range []struct {
		moves string
		want  Stats
	}{
		{"0,0 1,0 0,1 1,1 0,2", Stats{Nodes: 1, CanonicalGames: 1, Value: mnk.Loss, Wins: [65]uint64{5: 1}}},
		{"0,0 0,1 0,2 1,0 1,1 1,2 2,1 2,0 2,2", Stats{Nodes: 1, CanonicalGames: 1, Value: mnk.Loss, Wins: [65]uint64{9: 1}}},
		{"0,0 1,1 2,2 0,1 2,1 2,0 0,2 1,2 1,0", Stats{Nodes: 1, CanonicalGames: 1, Draws: 1, Value: mnk.Drawn}},
	} {
		p, err := g.ParseMoves(tc.moves)
		if err != nil {
			t.Fatal(err)
		}
		if got := New(g).Count(p); got != tc.want {
			t.Errorf("Count(%s) = %+v, want %+v", g.String(p), got, tc.want)
		}
	}
}

// TestCounterReuse checks that the order of calls on one Counter does not
// change the answers.
func TestCounterReuse(t *testing.T) {
	race.SkipSerial(t)
	g := mnk.MustNew(3, 4, 3)
	fresh := New(g).Count(mnk.Position{})
	c := New(g)
	var kids []Stats
	for _, cell := range []int{mnk.Cell(0, 0), mnk.Cell(1, 1), mnk.Cell(2, 3)} {
		q, _ := g.Play(mnk.Position{}, cell)
		kids = append(kids, c.Count(q))
	}
	if got := c.Count(mnk.Position{}); got != fresh {
		t.Errorf("Count after children = %+v, want %+v", got, fresh)
	}
	for i, cell := range []int{mnk.Cell(0, 0), mnk.Cell(1, 1), mnk.Cell(2, 3)} {
		q, _ := g.Play(mnk.Position{}, cell)
		if got := New(g).Count(q); got != kids[i] {
			t.Errorf("Count(%s) = %+v, want %+v", g.String(q), kids[i], got)
		}
	}
	c.Reset()
	if c.MemoEntries() != 0 {
		t.Errorf("MemoEntries after Reset = %d, want 0", c.MemoEntries())
	}
	if got := c.Count(mnk.Position{}); got != fresh {
		t.Errorf("Count after Reset = %+v, want %+v", got, fresh)
	}
}

// mapCache is an in-memory Cache that records what it was asked.
type mapCache struct {
	m             map[mnk.Position]Stats
	loads, stores int
	maxPly        int
}

func (mc *mapCache) Load(p mnk.Position) (Stats, bool) {
	mc.loads++
	mc.maxPly = max(mc.maxPly, p.Ply())
	s, ok := mc.m[p]
	return s, ok
}

func (mc *mapCache) Store(p mnk.Position, s Stats) {
	mc.stores++
	mc.maxPly = max(mc.maxPly, p.Ply())
	mc.m[p] = s
}

func TestCache(t *testing.T) {
	race.SkipSerial(t)
	g := mnk.MustNew(3, 4, 3)
	want := New(g).Count(mnk.Position{})
	mc := &mapCache{m: map[mnk.Position]Stats{}}
	c := New(g)
	c.SetCache(mc, 2)
	if got := c.Count(mnk.Position{}); got != want {
		t.Errorf("Count with empty cache = %+v, want %+v", got, want)
	}
	if mc.maxPly > 2 {
		t.Errorf("cache used at ply %d, want <= 2", mc.maxPly)
	}
	if c.CacheHits() != 0 {
		t.Errorf("CacheHits = %d, want 0", c.CacheHits())
	}
	for p, s := range mc.m {
		if !g.IsCanonical(p) {
			t.Errorf("cache key %s is not canonical", g.String(p))
		}
		if want := New(g).Count(p); s != want {
			t.Errorf("cached %s = %+v, want %+v", g.String(p), s, want)
		}
	}
	stored := mc.stores

	c2 := New(g)
	c2.SetCache(mc, 2)
	if got := c2.Count(mnk.Position{}); got != want {
		t.Errorf("Count from cache = %+v, want %+v", got, want)
	}
	if c2.CacheHits() != 1 || mc.stores != stored {
		t.Errorf("second counter: %d hits, %d new stores, want 1 hit (the root), 0 stores", c2.CacheHits(), mc.stores-stored)
	}
	// A child taken from the cache must give the same root.
	delete(mc.m, mnk.Position{})
	c3 := New(g)
	c3.SetCache(mc, 2)
	if got := c3.Count(mnk.Position{}); got != want {
		t.Errorf("Count from cached children = %+v, want %+v", got, want)
	}
	if c3.CacheHits() == 0 {
		t.Errorf("third counter: no cache hits")
	}
}

// TestOverflow feeds huge counts through a cache and expects a panic, not a
// wrapped-around number.
func TestOverflow(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	huge := Stats{Nodes: 1 << 62, Wins: [65]uint64{9: 1 << 62}, CanonicalGames: 1, Value: mnk.Drawn}
	mc := &mapCache{m: map[mnk.Position]Stats{}}
	for _, cell := range []int{mnk.Cell(0, 0), mnk.Cell(0, 1), mnk.Cell(1, 1)} {
		q, _ := g.Play(mnk.Position{}, cell)
		mc.m[q] = huge
	}
	c := New(g)
	c.SetCache(mc, 1)
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "overflow") {
			t.Errorf("Count with overflowing children: recover() = %v, want a panic about overflow", r)
		}
	}()
	s := c.Count(mnk.Position{})
	t.Errorf("Count with overflowing children returned %d nodes", s.Nodes)
}

func TestStatsMarshal(t *testing.T) {
	g := mnk.MustNew(3, 4, 3)
	c := New(g)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		p, _ := ref.RandomGame(g, rng, rng.IntN(10))
		s := c.Count(p)
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Stats
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("UnmarshalBinary(%x): %v", b, err)
		}
		if got != s {
			t.Errorf("round trip of %+v = %+v", s, got)
		}
		if len(b) > 64 {
			t.Errorf("%d bytes for %+v, want at most 64", len(b), s)
		}
		for i := range len(b) {
			if err := new(Stats).UnmarshalBinary(b[:i]); err == nil || !errors.Is(err, errStats) {
				t.Errorf("UnmarshalBinary of %d of %d bytes: err = %v, want errStats", i, len(b), err)
			}
		}
		if err := new(Stats).UnmarshalBinary(append(bytes.Clone(b), 0)); err == nil {
			t.Errorf("UnmarshalBinary with a trailing byte: err = nil, want an error")
		}
	}
}

// TestPartition checks that the subtrees of the reverse-search tree at ply
// s partition the positions: the orbits below s plus Positions of every
// orbit at ply s (found independently, by deduplicating canonical forms
// layer by layer) give the whole game.
func TestPartition(t *testing.T) {
	for _, r := range ref.Games("3,3,3 3,4,3 4,3,3 4,4,4") {
		if r.Cells() > 12 && testing.Short() {
			continue
		}
		g := mnk.MustNew(r.M, r.N, r.K)
		whole := Positions(g, mnk.Position{})
		layer := map[mnk.Position]mnk.Result{{}: mnk.Ongoing}
		for s := 1; s <= 3; s++ {
			next := map[mnk.Position]mnk.Result{}
			for p, res := range layer {
				if res != mnk.Ongoing {
					continue
				}
				for e := g.Empty(p); e != 0; e &= e - 1 {
					q, qr := g.Play(p, bits.TrailingZeros64(e))
					cq, _ := g.Canonical(q)
					next[cq] = qr
				}
			}
			layer = next
			name := fmt.Sprintf("%s s=%d", ref.Name(r), s)

			sum := Walk(g, mnk.Position{}, s-1, nil)
			for p := range layer {
				pc := Positions(g, p)
				sum.Add(&pc)
			}
			if sum != whole {
				t.Errorf("%s: below s + subtrees at s = %+v, want %+v", name, sum, whole)
			}

			// The runtime's form: everything to ply s, then the
			// subtrees of the non-terminal orbits at s minus their roots.
			var frontier []mnk.Position
			sum = Walk(g, mnk.Position{}, s, func(p mnk.Position, orbit int, res mnk.Result) {
				if p.Ply() == s && res == mnk.Ongoing {
					frontier = append(frontier, p)
				}
			})
			nonterminal := 0
			for _, res := range layer {
				if res == mnk.Ongoing {
					nonterminal++
				}
			}
			if len(frontier) != nonterminal {
				t.Errorf("%s: WalkPositions found %d non-terminal orbits at ply s, want %d", name, len(frontier), nonterminal)
			}
			for _, p := range frontier {
				if _, ok := layer[p]; !ok {
					t.Errorf("%s: WalkPositions visited %s, not a canonical position at ply s", name, g.String(p))
				}
				pc := Positions(g, p)
				_, orbit := g.Canonical(p)
				pc.Positions -= uint64(orbit)
				pc.Canonical--
				pc.ByPly[s] -= uint64(orbit)
				sum.Add(&pc)
			}
			if sum != whole {
				t.Errorf("%s: to s + subtrees below s = %+v, want %+v", name, sum, whole)
			}
		}
	}
}

// TestCanonicalParent checks the parent rule on random reachable positions:
// one stone fewer, valid, and for a position with a line, without a line.
func TestCanonicalParent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range ref.Games("3,3,3 4,4,3 5,5,4 3,5,2 2,2,1 8,8,5") {
		g := mnk.MustNew(r.M, r.N, r.K)
		for range 500 {
			q, res := ref.RandomGame(g, rng, 1+rng.IntN(g.Cells()))
			par := Parent(g, q)
			name := fmt.Sprintf("%s %s", ref.Name(r), g.String(q))
			if par.Ply() != q.Ply()-1 || par.X&^q.X != 0 || par.O&^q.O != 0 {
				t.Errorf("%s: parent %s is not q minus one stone", name, g.String(par))
				continue
			}
			if err := g.Valid(par); err != nil {
				t.Errorf("%s: parent: %v", name, err)
			}
			if r.HasLine(par.X) || r.HasLine(par.O) {
				t.Errorf("%s: parent %s has a line", name, g.String(par))
			}
			removed := q.X ^ par.X ^ q.O ^ par.O
			last := q.O
			if q.Ply()%2 == 1 {
				last = q.X
			}
			if res == mnk.Ongoing || res == mnk.Draw {
				if removed < last&^removed {
					t.Errorf("%s: parent removed %#x, not the highest stone of %#x", name, removed, last)
				}
			}
		}
	}
}

func TestCountAllocs(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	c := New(g)
	c.Count(mnk.Position{})
	if n := testing.AllocsPerRun(5, func() {
		c.Reset()
		c.Count(mnk.Position{})
	}); n != 0 {
		t.Errorf("Count on a warmed Counter: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(5, func() { Positions(g, mnk.Position{}) }); n > 1 {
		t.Errorf("CountPositions: %v allocations, want at most 1 (its stack)", n)
	}
}

// countdownCtx is a context whose Err turns to Canceled on its n-th call:
// it stops a count at a chosen poll, without timing.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Done() <-chan struct{} { return make(chan struct{}) }

func (c *countdownCtx) Err() error {
	c.n--
	if c.n <= 0 {
		return context.Canceled
	}
	return nil
}

// TestCountContext stops counts part way and checks that they say so, and
// that what they leave behind (the memo, the cache) is exact: the same
// Counter, and a new one using the same cache, then count exactly.
func TestCountContext(t *testing.T) {
	race.SkipSerial(t)
	g := mnk.MustNew(4, 4, 3)
	want := New(g).Count(mnk.Position{})
	wantPC := Positions(g, mnk.Position{})
	ref := New(g) // its memo is exact (TestCounterReuse)
	for _, polls := range []int{1, 2, 5, 20} {
		mc := &mapCache{m: map[mnk.Position]Stats{}}
		c := New(g)
		c.SetCache(mc, 6)
		st, err := c.CountContext(&countdownCtx{Context: context.Background(), n: polls}, mnk.Position{})
		if !errors.Is(err, context.Canceled) || st != (Stats{}) {
			t.Fatalf("stopped at poll %d: %+v, %v; want zero stats and context.Canceled", polls, st, err)
		}
		if polls > 1 && c.MemoEntries() == 0 {
			t.Errorf("stopped at poll %d: nothing memoised, want the positions counted before", polls)
		}
		for p, s := range mc.m {
			if exact := ref.Count(p); s != exact {
				t.Fatalf("stopped at poll %d: cached %s = %+v, want %+v", polls, g.String(p), s, exact)
			}
		}
		if got := c.Count(mnk.Position{}); got != want {
			t.Errorf("stopped at poll %d, then counted again: %+v, want %+v", polls, got, want)
		}
		c2 := New(g)
		c2.SetCache(mc, 6)
		if got := c2.Count(mnk.Position{}); got != want {
			t.Errorf("stopped at poll %d, a new counter on its cache: %+v, want %+v", polls, got, want)
		}

		pc, err := PositionsContext(&countdownCtx{Context: context.Background(), n: polls}, g, mnk.Position{})
		if !errors.Is(err, context.Canceled) || pc != (PositionCounts{}) {
			t.Errorf("positions stopped at poll %d: %+v, %v; want zero counts and context.Canceled", polls, pc, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	if st, err := New(g).CountContext(ctx, mnk.Position{}); err != nil || st != want {
		t.Errorf("CountContext with a live context = %+v, %v; want %+v", st, err, want)
	}
	if pc, err := PositionsContext(ctx, g, mnk.Position{}); err != nil || pc != wantPC {
		t.Errorf("CountPositionsContext with a live context = %+v, %v; want %+v", pc, err, wantPC)
	}
	cancel()
	if _, err := New(g).CountContext(ctx, mnk.Position{}); !errors.Is(err, context.Canceled) {
		t.Errorf("CountContext with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestSharedMemo counts the children of the empty board (overlapping
// subtrees) on several goroutines with Counters of one Memo, each in an
// order of its own, while the memo grows from its smallest table; every
// count must equal that of a Counter of its own, and the memo, shared, must
// then answer every position a fresh Counter counts.
func TestSharedMemo(t *testing.T) {
	g := mnk.MustNew(4, 4, 3)
	if testing.Short() {
		g = mnk.MustNew(3, 4, 3)
	}
	roots := ref.SplitPositions(g, 2)
	want := make([]Stats, len(roots))
	ref := New(g)
	for i, p := range roots {
		want[i] = ref.Count(p)
	}
	memo := NewMemo(g)
	const goroutines = 4
	got := make([][]Stats, goroutines)
	var wg sync.WaitGroup
	for w := range goroutines {
		c := memo.NewCounter()
		got[w] = make([]Stats, len(roots))
		wg.Go(func() {
			for j := range roots {
				i := (j + w*len(roots)/goroutines) % len(roots) // each goroutine in its own order
				if w%2 == 1 {
					i = len(roots) - 1 - i
				}
				got[w][i] = c.Count(roots[i])
			}
		})
	}
	wg.Wait()
	for w := range goroutines {
		for i, p := range roots {
			if got[w][i] != want[i] {
				t.Errorf("goroutine %d: Count(%s) = %+v, want %+v", w, g.String(p), got[w][i], want[i])
			}
		}
	}
	alone := New(g)
	full := alone.Count(mnk.Position{})
	if s := memo.NewCounter().Count(mnk.Position{}); s != full {
		t.Errorf("Count of the root on the shared memo = %+v, want %+v", s, full)
	}
	keys := map[mnk.Position]bool{}
	table := memo.table.Load()
	for _, s := range table.slots {
		if s != 0 {
			e := memo.entry(s >> 32)
			p := mnk.Position{X: e[eX], O: e[eO]}
			if keys[p] {
				t.Errorf("%s is twice in the shared memo", g.String(p))
			}
			keys[p] = true
		}
	}
	if n := memo.Entries(); n != len(keys) {
		t.Errorf("Entries = %d, want %d, the positions in its table", n, len(keys))
	}
}

// engineCounts gathers the same figures from the engine.
func engineCounts(g *mnk.Game, p mnk.Position) ref.Counts {
	s := New(g).Count(p)
	pc := Positions(g, p)
	return ref.Counts{
		Nodes: s.Nodes, Draws: s.Draws, CanonicalGames: s.CanonicalGames, Wins: s.Wins, Value: s.Value,
		Positions: pc.Positions, Canonical: pc.Canonical, Terminal: pc.Terminal,
		CanonicalTerminal: pc.CanonicalTerminal, ByPly: pc.ByPly,
		HasValue: true, HasCG: true, HasPositions: true,
	}
}

// compareCounts reports every figure present in both got and want that
// differs.
func compareCounts(t *testing.T, name string, got, want ref.Counts) {
	t.Helper()
	if got.Nodes != want.Nodes {
		t.Errorf("%s: nodes = %d, want %d", name, got.Nodes, want.Nodes)
	}
	if got.Draws != want.Draws {
		t.Errorf("%s: draws = %d, want %d", name, got.Draws, want.Draws)
	}
	if got.Wins != want.Wins {
		t.Errorf("%s: wins by ply = %v, want %v", name, trim(got.Wins[:]), trim(want.Wins[:]))
	}
	if got.HasValue && want.HasValue && got.Value != want.Value {
		t.Errorf("%s: value = %v, want %v", name, got.Value, want.Value)
	}
	if got.HasCG && want.HasCG && got.CanonicalGames != want.CanonicalGames {
		t.Errorf("%s: canonical games = %d, want %d", name, got.CanonicalGames, want.CanonicalGames)
	}
	if got.HasPositions && want.HasPositions {
		if got.Positions != want.Positions || got.Canonical != want.Canonical {
			t.Errorf("%s: positions, canonical = %d, %d, want %d, %d", name, got.Positions, got.Canonical, want.Positions, want.Canonical)
		}
		if got.Terminal != want.Terminal || got.CanonicalTerminal != want.CanonicalTerminal {
			t.Errorf("%s: terminal, canonical terminal = %v, %v, want %v, %v", name, got.Terminal, got.CanonicalTerminal, want.Terminal, want.CanonicalTerminal)
		}
		if got.ByPly != want.ByPly {
			t.Errorf("%s: positions by ply = %v, want %v", name, trim(got.ByPly[:]), trim(want.ByPly[:]))
		}
	}
}

// trim drops trailing zeros, for readable messages.
func trim(a []uint64) []uint64 {
	for len(a) > 0 && a[len(a)-1] == 0 {
		a = a[:len(a)-1]
	}
	return a
}
