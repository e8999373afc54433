package forward

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
)

// known are figures worked out by hand or published, not by a counter.
type known struct {
	rows, cols, k                     int
	games, xWins, oWins, draws, nodes uint64
	positions, canonical              uint64
	terminal, canonicalTerminal       [3]uint64
	byLength, byPly, canonicalByPly   []uint64
	symmetries                        int
}

var knownAnswers = []known{
	// Tic-tac-toe: the games by length, positions and canonical ones by
	// ply are the classic figures (OEIS A008907 for the positions by ply).
	{
		rows: 3, cols: 3, k: 3,
		games: 255168, xWins: 131184, oWins: 77904, draws: 46080, nodes: 549946,
		positions: 5478, canonical: 765,
		terminal: [3]uint64{626, 316, 16}, canonicalTerminal: [3]uint64{91, 44, 3},
		byLength:       []uint64{0, 0, 0, 0, 0, 1440, 5328, 47952, 72576, 127872},
		byPly:          []uint64{1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78},
		canonicalByPly: []uint64{1, 3, 12, 38, 108, 174, 204, 153, 57, 15},
		symmetries:     8,
	},
	// One cell: X's first stone is a line.
	{
		rows: 1, cols: 1, k: 1,
		games: 1, xWins: 1, nodes: 2, positions: 2, canonical: 2,
		terminal: [3]uint64{1, 0, 0}, canonicalTerminal: [3]uint64{1, 0, 0},
		byLength: []uint64{0, 1}, byPly: []uint64{1, 1}, canonicalByPly: []uint64{1, 1},
		symmetries: 8,
	},
	// One cell, no line possible: one drawn game.
	{
		rows: 1, cols: 1, k: 2,
		games: 1, draws: 1, nodes: 2, positions: 2, canonical: 2,
		terminal: [3]uint64{0, 0, 1}, canonicalTerminal: [3]uint64{0, 0, 1},
		byLength: []uint64{0, 1}, byPly: []uint64{1, 1}, canonicalByPly: []uint64{1, 1},
		symmetries: 8,
	},
	// 1x3, k larger than the board: 3! drawn games; up to the mirror, X
	// alone at an end or in the middle, X and O in 3 ways, O at an end or
	// in the middle of the full board.
	{
		rows: 1, cols: 3, k: 4,
		games: 6, draws: 6, nodes: 1 + 3 + 6 + 6, positions: 13, canonical: 8,
		terminal: [3]uint64{0, 0, 3}, canonicalTerminal: [3]uint64{0, 0, 2},
		byLength: []uint64{0, 0, 0, 6}, byPly: []uint64{1, 3, 6, 3}, canonicalByPly: []uint64{1, 2, 3, 2},
		symmetries: 4,
	},
	// 2x2, k=2: any two cells are in a line, so X wins with its second
	// stone, at move 3, in all 4*3*2 games. Up to symmetry: O beside or
	// across from X; X's pair a side or a diagonal.
	{
		rows: 2, cols: 2, k: 2,
		games: 24, xWins: 24, nodes: 1 + 4 + 12 + 24, positions: 1 + 4 + 12 + 12, canonical: 6,
		terminal: [3]uint64{12, 0, 0}, canonicalTerminal: [3]uint64{2, 0, 0},
		byLength: []uint64{0, 0, 0, 24, 0}, byPly: []uint64{1, 4, 12, 12, 0}, canonicalByPly: []uint64{1, 1, 2, 2, 0},
		symmetries: 8,
	},
}

func TestKnownAnswers(t *testing.T) {
	for _, ka := range knownAnswers {
		name := fmt.Sprintf("%dx%d k=%d", ka.rows, ka.cols, ka.k)
		t.Run(name, func(t *testing.T) {
			s, err := Count(context.Background(), ka.rows, ka.cols, ka.k)
			if err != nil {
				t.Fatal(err)
			}
			want := &Stats{
				Rows: ka.rows, Cols: ka.cols, K: ka.k,
				Nodes: big1(ka.nodes), Games: big1(ka.games),
				XWins: big1(ka.xWins), OWins: big1(ka.oWins), Draws: big1(ka.draws),
				Positions: ka.positions, Canonical: ka.canonical,
				PositionsByPly: ka.byPly, CanonicalByPly: ka.canonicalByPly,
				Terminal: ka.terminal, CanonicalTerminal: ka.canonicalTerminal,
				Symmetries: ka.symmetries,
			}
			for _, g := range ka.byLength {
				want.GamesByLength = append(want.GamesByLength, big1(g))
			}
			compare(t, name, s, want)
		})
	}
}

// TestFourByFour checks the published figures of 4x4 k=4: the games
// (OEIS A061526) and the positions.
func TestFourByFour(t *testing.T) {
	if testing.Short() {
		t.Skip("9.7M positions; the 3x3 known answers cover the same code under -short")
	}
	s, err := Count(context.Background(), 4, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Games.String(), "15038733958272"; got != want {
		t.Errorf("4x4 k=4 games = %s, want %s", got, want)
	}
	if got, want := s.Positions, uint64(9_722_011); got != want {
		t.Errorf("4x4 k=4 positions = %d, want %d", got, want)
	}
}

// deep adds the slowest differential cases, 2x8 with k from 5 to 8:
// go test -run AgainstCount ./pkg/engine/mnk/forward -args -mnk.deep
var deep = flag.Bool("mnk.deep", false, "also compare 2x8 with k 5 to 8 with package count (slow)")

// TestAgainstCount compares every figure with package count's on every
// board of up to 16 cells that package mnk takes (sides of at most 8;
// rows <= cols, and some with rows > cols) and
// every k from 1 to one more than the longer side. Package count refuses
// that last k; there every game is a draw, and the figures are compared
// with their formulas and the orbits with an enumeration under package
// mnk's symmetries. Package count takes most of the time; under -short
// only the boards of up to 12 cells run, and 2x8 with k from 5 to 8 only
// with -mnk.deep.
func TestAgainstCount(t *testing.T) {
	var boards [][2]int
	for rows := 1; rows <= 4; rows++ {
		for cols := rows; rows*cols <= 16 && cols <= mnk.MaxSide; cols++ {
			boards = append(boards, [2]int{rows, cols})
		}
	}
	boards = append(boards, [][2]int{{2, 1}, {3, 1}, {3, 2}, {4, 2}, {4, 3}, {5, 2}, {5, 3}, {7, 2}}...)
	for _, b := range boards {
		rows, cols := b[0], b[1]
		for k := 1; k <= max(rows, cols)+1; k++ {
			name := fmt.Sprintf("%dx%d k=%d", rows, cols, k)
			t.Run(name, func(t *testing.T) {
				// Two at a time: the 16-cell boards take seconds each,
				// most of it in package count.
				t.Parallel()
				if rows*cols > 12 && testing.Short() {
					t.Skip("deep case; the boards of up to 12 cells cover the same code under -short")
				}
				if rows == 2 && cols == 8 && k >= 5 && k <= 8 && !*deep {
					t.Skip("run with -mnk.deep (8 to 17 s each, most in package count); 2x8 k=4 and k=9 and 2x7 cover the same code")
				}
				got, err := Count(context.Background(), rows, cols, k)
				if err != nil {
					t.Fatal(err)
				}
				if k > max(rows, cols) {
					compare(t, name, got, allDraws(rows, cols, k))
				} else {
					compare(t, name, got, fromCount(rows, cols, k))
				}
			})
		}
	}
}

// fromCount gathers package count's figures as Stats.
func fromCount(rows, cols, k int) *Stats {
	g := mnk.MustNew(rows, cols, k)
	cs := count.New(g).Count(mnk.Position{})
	cells := rows * cols
	canonicalByPly := make([]uint64, cells+1)
	pc := count.Walk(g, mnk.Position{}, cells, func(p mnk.Position, _ int, _ mnk.Result) {
		canonicalByPly[p.Ply()]++
	})
	s := &Stats{
		Rows: rows, Cols: cols, K: k,
		Nodes: big1(cs.Nodes), Games: big1(cs.Games()),
		XWins: big1(cs.XWins()), OWins: big1(cs.OWins()), Draws: big1(cs.Draws),
		Positions: pc.Positions, Canonical: pc.Canonical,
		PositionsByPly: pc.ByPly[:cells+1], CanonicalByPly: canonicalByPly,
		Symmetries: g.NumSymmetries(),
	}
	for l := range cells + 1 {
		n := cs.Wins[l]
		if l == cells {
			n += cs.Draws
		}
		s.GamesByLength = append(s.GamesByLength, big1(n))
	}
	for r, mr := range []mnk.Result{mnk.XWin, mnk.OWin, mnk.Draw} {
		s.Terminal[r], s.CanonicalTerminal[r] = pc.Terminal[mr], pc.CanonicalTerminal[mr]
	}
	return s
}

// allDraws returns the figures of a board where no line fits: every
// sequence of distinct cells is a game until the board is full, a
// position of p stones is any ceil(p/2) cells for X and floor(p/2) of the
// rest for O, reached in ceil(p/2)! floor(p/2)! ways; the orbits are
// counted by enumerating the positions and keeping those that are
// canonical under package mnk's symmetries.
func allDraws(rows, cols, k int) *Stats {
	cells := rows * cols
	// Package mnk wants k <= max(rows, cols); the symmetries do not
	// depend on k.
	g := mnk.MustNew(rows, cols, max(rows, cols))
	s := &Stats{
		Rows: rows, Cols: cols, K: k,
		Nodes: new(big.Int), Games: fact(cells), XWins: new(big.Int), OWins: new(big.Int), Draws: fact(cells),
		PositionsByPly: make([]uint64, cells+1), CanonicalByPly: make([]uint64, cells+1),
		Symmetries: g.NumSymmetries(),
	}
	for p := range cells + 1 {
		s.Nodes.Add(s.Nodes, new(big.Int).Div(fact(cells), fact(cells-p)))
		s.GamesByLength = append(s.GamesByLength, new(big.Int))
	}
	s.GamesByLength[cells] = fact(cells)

	var cell []int // package mnk's cell of each of ours
	for r := range rows {
		for c := range cols {
			cell = append(cell, mnk.Cell(r, c))
		}
	}
	toMnk := func(set uint32) uint64 {
		var m uint64
		for ; set != 0; set &= set - 1 {
			m |= 1 << cell[bits.TrailingZeros32(set)]
		}
		return m
	}
	full := uint32(1)<<cells - 1
	for x := uint32(0); x <= full; x++ {
		a := bits.OnesCount32(x)
		rest := full &^ x
		// The subsets o of rest, with a or a-1 stones.
		for o := rest; ; o = (o - 1) & rest {
			if b := bits.OnesCount32(o); b == a || b == a-1 {
				p := a + b
				s.Positions++
				s.PositionsByPly[p]++
				pos := mnk.Position{X: toMnk(x), O: toMnk(o)}
				cp, _ := g.Canonical(pos)
				canon := cp == pos
				if canon {
					s.Canonical++
					s.CanonicalByPly[p]++
				}
				if p == cells {
					s.Terminal[Draw]++
					if canon {
						s.CanonicalTerminal[Draw]++
					}
				}
			}
			if o == 0 {
				break
			}
		}
	}
	return s
}

func fact(n int) *big.Int { return new(big.Int).MulRange(1, int64(max(n, 1))) }

func big1(n uint64) *big.Int { return new(big.Int).SetUint64(n) }

// compare reports every figure of got that differs from want's.
func compare(t *testing.T, name string, got, want *Stats) {
	t.Helper()
	if got.Rows != want.Rows || got.Cols != want.Cols || got.K != want.K {
		t.Errorf("%s: board %dx%d k=%d, want %dx%d k=%d", name, got.Rows, got.Cols, got.K, want.Rows, want.Cols, want.K)
	}
	for _, f := range []struct {
		what      string
		got, want *big.Int
	}{
		{"nodes", got.Nodes, want.Nodes}, {"games", got.Games, want.Games},
		{"X wins", got.XWins, want.XWins}, {"O wins", got.OWins, want.OWins}, {"draws", got.Draws, want.Draws},
	} {
		if f.got.Cmp(f.want) != 0 {
			t.Errorf("%s: %s = %v, want %v", name, f.what, f.got, f.want)
		}
	}
	if !slices.EqualFunc(got.GamesByLength, want.GamesByLength, func(a, b *big.Int) bool { return a.Cmp(b) == 0 }) {
		t.Errorf("%s: games by length = %v, want %v", name, got.GamesByLength, want.GamesByLength)
	}
	if got.Positions != want.Positions || got.Canonical != want.Canonical {
		t.Errorf("%s: positions, canonical = %d, %d, want %d, %d", name, got.Positions, got.Canonical, want.Positions, want.Canonical)
	}
	if !slices.Equal(got.PositionsByPly, want.PositionsByPly) {
		t.Errorf("%s: positions by ply = %v, want %v", name, got.PositionsByPly, want.PositionsByPly)
	}
	if !slices.Equal(got.CanonicalByPly, want.CanonicalByPly) {
		t.Errorf("%s: canonical positions by ply = %v, want %v", name, got.CanonicalByPly, want.CanonicalByPly)
	}
	if got.Terminal != want.Terminal || got.CanonicalTerminal != want.CanonicalTerminal {
		t.Errorf("%s: terminal, canonical terminal = %v, %v, want %v, %v", name, got.Terminal, got.CanonicalTerminal, want.Terminal, want.CanonicalTerminal)
	}
	if got.Symmetries != want.Symmetries {
		t.Errorf("%s: symmetries = %d, want %d", name, got.Symmetries, want.Symmetries)
	}
}

func TestBadArguments(t *testing.T) {
	for _, tc := range []struct {
		rows, cols, k int
		want          string
	}{
		{0, 3, 3, "rows 0"},
		{3, -1, 3, "cols -1"},
		{3, 3, 0, "k 0"},
		{5, 6, 4, "board 5x6 has 30 cells: want at most 25"},
		{1, 26, 4, "board 1x26: want at most 25 cells"},
		{1 << 32, 1 << 32, 4, "want at most 25 cells"},
	} {
		s, err := Count(context.Background(), tc.rows, tc.cols, tc.k)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Count(%d, %d, %d) = %v, %v; want an error naming %q", tc.rows, tc.cols, tc.k, s, err, tc.want)
		}
	}
	// Any k beyond both sides is a board where every game is a draw.
	s, err := Count(context.Background(), 2, 2, 1<<62)
	if err != nil || s.Draws.Int64() != 24 || s.Games.Int64() != 24 {
		t.Errorf("Count(2, 2, 1<<62) = %v, %v; want 24 games, all drawn", s, err)
	}
}

// TestLargestBoards counts boards of 25 cells as far as their first plies,
// where a 5x5 count would take hours: a 1x25 board with k=1 ends at X's
// first stone, and 5x5 is stopped by its context after its early plies.
func TestLargestBoards(t *testing.T) {
	s, err := Count(context.Background(), 1, 25, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Games.Uint64(), uint64(25); got != want || s.XWins.Uint64() != want {
		t.Errorf("1x25 k=1: games, X wins = %v, %v, want %d", s.Games, s.XWins, want)
	}
	if got, want := s.CanonicalByPly[1], uint64(13); got != want {
		t.Errorf("1x25 k=1: canonical positions at ply 1 = %d, want %d", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var plies []uint64
	_, err = Count(ctx, 5, 5, 5, WithProgress(func(ply int, positions uint64) {
		plies = append(plies, positions)
		if ply == 3 {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("5x5 k=5 cancelled at ply 3: error %v, want %v", err, context.Canceled)
	}
	// 1, 25, 25*24, 300*23 positions at plies 0..3.
	if want := []uint64{1, 26, 626, 7526}; !slices.Equal(plies, want) {
		t.Errorf("5x5 k=5 positions up to plies 0..3 = %v, want %v", plies, want)
	}
}

// TestProgress checks that the callback sees every ply once, in order,
// with the positions so far, and finally all of them.
func TestProgress(t *testing.T) {
	var plies []int
	var last uint64
	s, err := Count(context.Background(), 3, 3, 3, WithProgress(func(ply int, positions uint64) {
		plies = append(plies, ply)
		last = positions
	}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(plies, want) {
		t.Errorf("progress plies = %v, want %v", plies, want)
	}
	if last != s.Positions {
		t.Errorf("last progress = %d positions, want %d", last, s.Positions)
	}
}

// TestAllocs checks that allocations do not grow with the positions: a
// count of 3x4 k=4 (142,231 positions) allocates at most once more per
// doubling of its tables (at most 2 x 20) than one of 1x12 k=1 (13
// positions), the same number of cells.
func TestAllocs(t *testing.T) {
	allocs := func(rows, cols, k int) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := Count(context.Background(), rows, cols, k); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(1, 12, 1), allocs(3, 4, 4)
	if large > small+40 {
		t.Errorf("allocations: 1x12 k=1 %v, 3x4 k=4 %v; want at most 40 more for 3x4", small, large)
	}
}

// TestWide checks the 128-bit totals past 2^64 and the overflow of a
// position's count, which boards of up to 25 cells do not reach.
func TestWide(t *testing.T) {
	var u u128
	u.add(^uint64(0))
	u.add(2)
	if got, want := u.big().String(), "18446744073709551617"; got != want {
		t.Errorf("2^64-1 + 2 = %s, want %s", got, want)
	}
	if got, want := add128(u, u128{1, ^uint64(0)}).big().String(), "55340232221128654848"; got != want {
		t.Errorf("(2^64+1) + (2^65-1) = %s, want 3*2^64 = %s", got, want)
	}

	tb := newTable(minTableBits)
	defer tb.free()
	key := uint64(flagUsed | 1)
	if !tb.add(key, ^uint64(0)) {
		t.Fatal("add of 2^64-1 to a new key reported an overflow")
	}
	if tb.add(key, 1) {
		t.Error("add of 1 to a count of 2^64-1 reported no overflow")
	}
	key2 := uint64(flagUsed | 2)
	tb.add(key2, ^uint64(0))
	batch := []slot{{key2, 1}}
	if tb.addBatch(batch, make([]uint64, 1)) {
		t.Error("addBatch of 1 to a count of 2^64-1 reported no overflow")
	}
}

// pollCtx is a context that counts the polls of its Err and reports
// context.Canceled from poll fail on (never if fail is 0).
type pollCtx struct {
	context.Context
	polls, fail int
}

func (c *pollCtx) Err() error {
	c.polls++
	if c.fail > 0 && c.polls >= c.fail {
		return context.Canceled
	}
	return nil
}

// TestCancel stops a count of 3x4 k=4 at each of its polls of the
// context, at the start of a ply or within one.
func TestCancel(t *testing.T) {
	live := &pollCtx{Context: context.Background()}
	want, err := Count(live, 3, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	// 13 plies and polls within them (every 65,536 positions).
	if live.polls < 14 {
		t.Fatalf("3x4 k=4 polled its context %d times, want at least 14", live.polls)
	}
	for fail := 1; fail <= live.polls; fail++ {
		s, err := Count(&pollCtx{Context: context.Background(), fail: fail}, 3, 4, 4)
		if !errors.Is(err, context.Canceled) || s != nil {
			t.Errorf("3x4 k=4 cancelled at poll %d: %v, %v; want nil, %v", fail, s, err, context.Canceled)
		}
	}
	if want.Positions != 142_231 {
		t.Errorf("3x4 k=4 with a live context: %d positions, want 142,231", want.Positions)
	}
}
