// Package forward counts the game tree of an m,n,k-game the plain way: ply by
// ply from the empty board, every exact position (not up to symmetry) kept
// with the number of move sequences that reach it, in one process.
//
// It is the reference that wopr's other counters are checked against, so it
// shares no code with them: it imports nothing of wopr, and its board
// encoding, rules, symmetries and hash table are its own, written from the
// definition of the game. X moves first; the players alternate putting a
// stone on an empty cell of a rows x cols board; the game ends when the
// player who just moved has k or more stones in a row (horizontally,
// vertically or along either diagonal), or when the board is full (a draw).
package forward

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
)

// MaxCells is the largest board Count accepts: a position is two 25-bit
// masks in one uint64 key.
const MaxCells = 25

// Result is how a complete game ended; it indexes Stats.Terminal and
// Stats.CanonicalTerminal.
type Result int

const (
	XWin Result = iota // X completed a line
	OWin               // O completed a line
	Draw               // the board filled without a line
)

// String returns "X wins", "O wins" or "draw".
func (r Result) String() string {
	switch r {
	case XWin:
		return "X wins"
	case OWin:
		return "O wins"
	case Draw:
		return "draw"
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// Stats are the exact statistics of the whole game tree of a rows x cols
// board with k in a row. The tree counts are *big.Int because they pass
// 2^64 on large boards (5x5 has about 1.5e25 games); the position counts
// are at most 3^25 and fit a uint64.
type Stats struct {
	Rows, Cols, K int

	// Nodes is the number of nodes of the game tree: every move sequence
	// from the empty board, the empty sequence (the root) included.
	Nodes *big.Int
	// Games is the number of complete games (move sequences that end the
	// game), XWins, OWins and Draws those by result.
	Games, XWins, OWins, Draws *big.Int
	// GamesByLength[L] is the number of complete games of L moves, for
	// L = 0..Rows*Cols.
	GamesByLength []*big.Int

	// Positions is the number of distinct reachable positions, the empty
	// board included; PositionsByPly[p] those with p stones.
	Positions      uint64
	PositionsByPly []uint64
	// Canonical is the number of reachable positions up to the symmetries
	// of the board (the orbits), CanonicalByPly[p] those with p stones.
	// A position counts as canonical when its encoding is the smallest of
	// its images; since the orbits partition the positions, this is the
	// number of orbits whatever the encoding.
	Canonical      uint64
	CanonicalByPly []uint64
	// Terminal[r] is the number of distinct positions where the game ends
	// with result r, CanonicalTerminal[r] those up to symmetry.
	Terminal, CanonicalTerminal [3]uint64

	// Symmetries is the number of symmetries used for Canonical: 8 on a
	// square board, else 4.
	Symmetries int
	// TableBytes is the most memory the hash tables held at once.
	TableBytes uint64
}

// Option configures Count.
type Option func(*config)

type config struct {
	progress func(ply int, positions uint64)
}

// WithProgress has Count call fn once a ply's positions are all known,
// with the ply and the number of distinct positions found so far (all
// plies up to and including ply). fn runs on Count's goroutine.
func WithProgress(fn func(ply int, positions uint64)) Option {
	return func(c *config) { c.progress = fn }
}

// ErrOverflow reports that the number of move sequences reaching one
// position does not fit a uint64 (it cannot happen on boards of up to 25
// cells, where the most is 13!*12!, about 3e18).
var ErrOverflow = errors.New("number of move sequences overflows uint64")

// Key layout: X's stones in bits 0..24, O's in bits 25..49 (cell r*cols+c
// is bit r*cols+c of each), flagWin when the last mover has a line,
// flagDraw when the board is full without one, and flagUsed always, so
// that 0 marks an empty slot of the hash table.
const (
	oShift   = MaxCells
	cellMask = 1<<MaxCells - 1
	flagDraw = 1 << 61
	flagWin  = 1 << 62
	flagUsed = 1 << 63
	flagEnd  = flagWin | flagDraw
)

// pollMask: ctx is polled once every pollMask+1 positions expanded.
const pollMask = 1<<16 - 1

// Count counts the game tree of the rows x cols board with k in a row:
// rows, cols and k at least 1 and rows*cols at most MaxCells (k may exceed
// both sides; then every game is a draw). It stops with ctx's error when
// ctx is done, polled at every ply and every 65,536 positions.
//
// Memory is the positions of two consecutive plies, in open-addressing
// tables of 16-byte slots at most 3/4 full, doubled as they fill: at the
// peak two tables of the largest ply's size, and during a growth half of
// one more. Stats.TableBytes reports it. 4x5 k=4 (126,228,960 positions
// at ply 13, the largest) peaks at two tables of 2^28 slots, 8 GiB, and a
// peak RSS of 8.0 GiB; 5x5, whose largest plies have about 3e9 positions,
// would need two tables of 2^32 slots, 128 GiB. Time: about 1.5 million
// positions per CPU second on 4x5 k=4 (675 million positions, 375 s user
// and 56 s system time on one core of the machine of docs/benchmarks.md).
func Count(ctx context.Context, rows, cols, k int, opts ...Option) (*Stats, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	r, err := newRules(rows, cols, k)
	if err != nil {
		return nil, err
	}
	c := counter{r: r, ctx: ctx, cfg: cfg}
	return c.run()
}

// rules are the board's cells, lines and symmetries.
type rules struct {
	rows, cols, k, cells int
	full                 uint32
	// lines[lineAt[c]:lineAt[c+1]] are the masks of the k-cell windows
	// through cell c; a stone put on c ends the game iff the mover's
	// stones cover one of them.
	lines  []uint32
	lineAt []int
	// sym[s][j][b] is the image under symmetry s+1 (0 is the identity,
	// not stored) of the stones b in cells 8j..8j+7.
	sym [][4][256]uint32
}

func newRules(rows, cols, k int) (*rules, error) {
	switch {
	case rows < 1:
		return nil, fmt.Errorf("forward count: rows %d: want at least 1", rows)
	case cols < 1:
		return nil, fmt.Errorf("forward count: cols %d: want at least 1", cols)
	case rows > MaxCells || cols > MaxCells:
		return nil, fmt.Errorf("forward count: board %dx%d: want at most %d cells", rows, cols, MaxCells)
	case rows*cols > MaxCells:
		return nil, fmt.Errorf("forward count: board %dx%d has %d cells: want at most %d", rows, cols, rows*cols, MaxCells)
	case k < 1:
		return nil, fmt.Errorf("forward count: k %d: want at least 1", k)
	}
	r := &rules{rows: rows, cols: cols, k: k, cells: rows * cols, full: 1<<(rows*cols) - 1}
	// The windows: k cells from (r0, c0) on in direction (dr, dc); none
	// when k exceeds both sides (and k-1 steps could overflow).
	var windows []uint32
	if k <= max(rows, cols) {
		for r0 := range rows {
			for c0 := range cols {
				for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
					r1, c1 := r0+(k-1)*d[0], c0+(k-1)*d[1]
					if r1 < 0 || r1 >= rows || c1 < 0 || c1 >= cols {
						continue
					}
					var w uint32
					for i := range k {
						w |= 1 << ((r0+i*d[0])*cols + c0 + i*d[1])
					}
					windows = append(windows, w)
				}
			}
		}
	}
	r.lineAt = make([]int, r.cells+1)
	for c := range r.cells {
		r.lineAt[c] = len(r.lines)
		for _, w := range windows {
			if w&(1<<c) != 0 {
				r.lines = append(r.lines, w)
			}
		}
	}
	r.lineAt[r.cells] = len(r.lines)

	// The symmetries as maps of (row, col): the mirror flips and the
	// half turn on any board; on a square one also the two diagonal
	// reflections and the quarter turns.
	maps := []func(i, j int) (int, int){
		func(i, j int) (int, int) { return i, cols - 1 - j },
		func(i, j int) (int, int) { return rows - 1 - i, j },
		func(i, j int) (int, int) { return rows - 1 - i, cols - 1 - j },
	}
	if rows == cols {
		n := rows - 1
		maps = append(maps,
			func(i, j int) (int, int) { return j, i },
			func(i, j int) (int, int) { return n - j, n - i },
			func(i, j int) (int, int) { return j, n - i },
			func(i, j int) (int, int) { return n - j, i },
		)
	}
	r.sym = make([][4][256]uint32, len(maps))
	for s, f := range maps {
		for c := range r.cells {
			i, j := f(c/cols, c%cols)
			img := uint32(1) << (i*cols + j)
			for b := range 256 {
				if b&(1<<(c%8)) != 0 {
					r.sym[s][c/8][b] |= img
				}
			}
		}
	}
	return r, nil
}

// symmetries returns the number of symmetries of the board, the identity
// included.
func (r *rules) symmetries() int { return 1 + len(r.sym) }

// image returns stones under symmetry s+1.
func (r *rules) image(s int, stones uint32) uint32 {
	t := &r.sym[s]
	return t[0][stones&0xff] | t[1][stones>>8&0xff] | t[2][stones>>16&0xff] | t[3][stones>>24]
}

// canonical reports whether the position of key is the smallest of its
// images, comparing O's stones first as the key's high bits.
func (r *rules) canonical(key uint64) bool {
	x, o := uint32(key&cellMask), uint32(key>>oShift&cellMask)
	for s := range r.sym {
		io := r.image(s, o)
		if io < o {
			return false
		}
		if io == o && r.image(s, x) < x {
			return false
		}
	}
	return true
}

// wins reports whether stones, which hold cell c, complete a line through c.
func (r *rules) wins(stones uint32, c int) bool {
	for _, w := range r.lines[r.lineAt[c]:r.lineAt[c+1]] {
		if stones&w == w {
			return true
		}
	}
	return false
}

// table is an open-addressing hash table with linear probing from key to
// the number of move sequences reaching it.
type table struct {
	slots []slot
	shift uint // index = hash >> shift
	used  int
	limit int    // the table grows past limit used slots (3/4 of them)
	touch uint64 // the sum of the keys addBatch loads first
}

// slot holds a key and its count together, so that a probe touches one
// cache line.
type slot struct{ key, n uint64 }

const minTableBits = 10

// batchSize is how many children flush adds at once.
const batchSize = 1024

func newTable(bits uint) *table {
	t := &table{}
	t.alloc(bits)
	return t
}

func (t *table) alloc(b uint) {
	t.slots = newSlots(1 << b)
	t.shift = 64 - b
	t.used = 0
	t.limit = len(t.slots) / 4 * 3
}

func (t *table) bytes() uint64 { return uint64(len(t.slots)) * 16 }

// hash is the finaliser of MurmurHash3 (Appleby), which spreads the few
// set bits of a key over the high bits used as the index.
func hash(key uint64) uint64 {
	key ^= key >> 33
	key *= 0xff51afd7ed558ccd
	key ^= key >> 33
	key *= 0xc4ceb9fe1a85ec53
	key ^= key >> 33
	return key
}

// add adds n to the count of key, inserting it if absent. It reports false
// if the count overflows.
func (t *table) add(key, n uint64) bool { return t.addAt(key, n, hash(key)>>t.shift) }

// addAt is add given key's home slot i.
func (t *table) addAt(key, n, i uint64) bool {
	mask := uint64(len(t.slots) - 1)
	for ; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key {
			var carry uint64
			s.n, carry = bits.Add64(s.n, n, 0)
			return carry == 0
		}
		if s.key == 0 {
			s.key, s.n = key, n
			t.used++
			return true
		}
	}
}

// addBatch adds the counts of batch to their keys, using home for their
// home slots; it reports false if a count overflows. The table must have
// room for batch.
//
// The table is probed at random, a cache miss per key, and one miss at a
// time when each insertion waits for its probe. So the batch's home slots
// are first loaded in a loop of independent loads, which the processor
// overlaps, and then the insertions find them in the cache. Batches of
// 1,024 children cut the CPU time of 4x4 k=4 from 4.5 s (one parent's
// children at a time) to 3.5 s.
func (t *table) addBatch(batch []slot, home []uint64) bool {
	var touch uint64
	for j := range batch {
		h := hash(batch[j].key) >> t.shift
		home[j] = h
		touch += t.slots[h].key
	}
	t.touch += touch
	ok := true
	for j, e := range batch {
		ok = t.addAt(e.key, e.n, home[j]) && ok
	}
	return ok
}

// grow doubles the table, re-inserting its entries.
func (t *table) grow() {
	old := t.slots
	t.alloc(uint(64-t.shift) + 1)
	var batch [batchSize]slot
	var home [batchSize]uint64
	n := 0
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		batch[n] = s
		n++
		if n == batchSize {
			t.addBatch(batch[:n], home[:n])
			n = 0
		}
	}
	t.addBatch(batch[:n], home[:n])
	freeSlots(old)
}

// free returns the table's slots.
func (t *table) free() {
	freeSlots(t.slots)
	t.slots = nil
}

// reset empties the table, keeping its slots.
func (t *table) reset() {
	clear(t.slots)
	t.used = 0
}

// u128 is an unsigned 128-bit total.
type u128 struct{ hi, lo uint64 }

func (u *u128) add(n uint64) {
	var carry uint64
	u.lo, carry = bits.Add64(u.lo, n, 0)
	u.hi += carry
}

func (u u128) big() *big.Int {
	b := new(big.Int).SetUint64(u.hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(u.lo))
}

type counter struct {
	r   *rules
	ctx context.Context
	cfg config

	nodes u128
	games [MaxCells + 1]u128 // by length
	wins  [3]u128            // games by Result
	s     Stats
	peak  uint64

	// batch[:nb] are children waiting for flush, home their home slots.
	batch  [batchSize]slot
	home   [batchSize]uint64
	nb     int
	polled int
}

func (c *counter) run() (*Stats, error) {
	r := c.r
	s := &c.s
	s.Rows, s.Cols, s.K = r.rows, r.cols, r.k
	s.PositionsByPly = make([]uint64, r.cells+1)
	s.CanonicalByPly = make([]uint64, r.cells+1)
	s.Symmetries = r.symmetries()

	cur, next := newTable(minTableBits), newTable(minTableBits)
	defer func() { cur.free(); next.free() }()
	cur.add(flagUsed, 1) // the empty board
	for ply := 0; ; ply++ {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		if len(next.slots) < len(cur.slots) {
			// The next ply is most often larger: growing the empty
			// table now saves re-inserting what it would hold.
			next.free()
			next.alloc(64 - cur.shift)
		}
		c.peak = max(c.peak, cur.bytes()+next.bytes())
		if err := c.expand(cur, next, ply); err != nil {
			return nil, err
		}
		if c.cfg.progress != nil {
			c.cfg.progress(ply, s.Positions)
		}
		if next.used == 0 {
			break
		}
		cur.reset()
		cur, next = next, cur
	}

	s.Nodes = c.nodes.big()
	s.GamesByLength = make([]*big.Int, r.cells+1)
	var games u128
	for l, g := range c.games[:r.cells+1] {
		s.GamesByLength[l] = g.big()
		games = add128(games, g)
	}
	s.Games = games.big()
	s.XWins, s.OWins, s.Draws = c.wins[XWin].big(), c.wins[OWin].big(), c.wins[Draw].big()
	s.TableBytes = c.peak
	return s, nil
}

func add128(a, b u128) u128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return u128{a.hi + b.hi + carry, lo}
}

// expand counts the positions of ply in cur and puts the children of the
// ongoing ones into next.
func (c *counter) expand(cur, next *table, ply int) error {
	r, s := c.r, &c.s
	xToMove := ply%2 == 0
	moverShift := uint(0)
	if !xToMove {
		moverShift = oShift
	}
	c.nb = 0
	for i := range cur.slots {
		key := cur.slots[i].key
		if key == 0 {
			continue
		}
		n := cur.slots[i].n
		c.nodes.add(n)
		s.Positions++
		s.PositionsByPly[ply]++
		canon := r.canonical(key)
		if canon {
			s.Canonical++
			s.CanonicalByPly[ply]++
		}
		if key&flagEnd != 0 {
			res := Draw
			if key&flagWin != 0 {
				// The last mover won: X after an odd ply.
				res = OWin
				if ply%2 == 1 {
					res = XWin
				}
			}
			c.games[ply].add(n)
			c.wins[res].add(n)
			s.Terminal[res]++
			if canon {
				s.CanonicalTerminal[res]++
			}
			continue
		}

		c.polled++
		if c.polled&pollMask == 0 {
			if err := c.ctx.Err(); err != nil {
				return err
			}
		}
		if c.nb > len(c.batch)-MaxCells {
			if err := c.flush(cur, next, ply+1); err != nil {
				return err
			}
		}
		mover := uint32(key >> moverShift & cellMask)
		empty := r.full &^ uint32(key|key>>oShift)
		full := bits.OnesCount32(empty) == 1
		for e := empty; e != 0; e &= e - 1 {
			cell := bits.TrailingZeros32(e)
			child := key | uint64(1)<<(uint(cell)+moverShift)
			if r.wins(mover|1<<cell, cell) {
				child |= flagWin
			} else if full {
				child |= flagDraw
			}
			c.batch[c.nb] = slot{child, n}
			c.nb++
		}
	}
	return c.flush(cur, next, ply+1)
}

// flush adds the children in c.batch, of ply, to next.
func (c *counter) flush(cur, next *table, ply int) error {
	batch := c.batch[:c.nb]
	c.nb = 0
	if next.used+len(batch) > next.limit {
		for next.used+len(batch) > next.limit {
			next.grow()
		}
		c.peak = max(c.peak, cur.bytes()+next.bytes()+next.bytes()/2)
	}
	if !next.addBatch(batch, c.home[:len(batch)]) {
		r := c.r
		return fmt.Errorf("forward count %dx%d k=%d: ply %d: %w", r.rows, r.cols, r.k, ply, ErrOverflow)
	}
	return nil
}
