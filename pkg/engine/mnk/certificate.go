package mnk

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// A Certificate proves the value of a position with strategies that anyone
// can check by playing them out against every reply, without trusting the
// solver that found them. A win is proven by a strategy of the winner that
// wins against every defence; a draw by a strategy of each side that never
// loses. A strategy gives one move for each position, up to symmetry, where
// its side is to move and which can arise when it is followed.
type Certificate struct {
	Game       *Game
	Root       Position
	Value      Value // of Root, for the side to move there
	Strategies []*Strategy
}

// Strategy is one side's moves.
type Strategy struct {
	// X is true for a strategy of X, false for one of O.
	X bool
	// Win is true for a strategy that wins, false for one that does not
	// lose.
	Win bool
	// Moves maps each canonical position (see Game.Canonical) where the
	// side is to move to a cell, in that canonical position's frame.
	Moves map[Position]int8
}

func (s *Strategy) side() string {
	if s.X {
		return "X"
	}
	return "O"
}

func (s *Strategy) goal() string {
	if s.Win {
		return "win"
	}
	return "not-lose"
}

// NewCertificate extracts, with a Solver of g, the strategies that prove
// the value of root: at each position of the proving side it takes the
// first move, in row-major order, that keeps the value (a move that
// completes a line first), and it follows every reply of the other side.
// progress, if not nil, is called with the number of positions visited now
// and then. A certificate grows with every reply it must answer: 4,4,4 (a
// draw) takes 21,398 moves, 4,5,4 1,046,938, and 5,5,4 had passed 4.5 GB
// and 6 minutes without finishing; past maxPositions positions visited (0:
// no limit) it stops with ErrCertificateTooBig.
func NewCertificate(ctx context.Context, s *Solver, root Position, maxPositions int, progress func(positions int)) (*Certificate, error) {
	g := s.g
	v, err := s.Solve(ctx, root)
	if err != nil {
		return nil, err
	}
	c := &Certificate{Game: g, Root: root, Value: v}
	xToMove := root.XToMove()
	switch v {
	case Win:
		c.Strategies = []*Strategy{{X: xToMove, Win: true}}
	case Loss:
		c.Strategies = []*Strategy{{X: !xToMove, Win: true}}
	default:
		c.Strategies = []*Strategy{{X: true}, {X: false}}
	}
	visited := 0
	for _, st := range c.Strategies {
		st.Moves = map[Position]int8{}
		seen := map[Position]bool{}
		var walk func(p Position) error
		walk = func(p Position) error {
			if g.Status(p) != Ongoing {
				return nil
			}
			key, sym := g.canonical(p)
			if seen[key] {
				return nil
			}
			seen[key] = true
			if visited++; maxPositions > 0 && visited > maxPositions {
				return fmt.Errorf("%w: more than %d positions", ErrCertificateTooBig, maxPositions)
			}
			if visited&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if progress != nil {
					progress(visited)
				}
			}
			empty := g.Empty(p)
			if p.XToMove() != st.X {
				for e := empty; e != 0; e &= e - 1 {
					q, _ := g.Play(p, bitIndex(e))
					if err := walk(q); err != nil {
						return err
					}
				}
				return nil
			}
			cell, err := certificateMove(ctx, s, p, st.Win)
			if err != nil {
				return err
			}
			st.Moves[key] = g.perm[sym][cell]
			q, _ := g.Play(p, cell)
			return walk(q)
		}
		if err := walk(root); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// certificateMove returns a move of the side to move at p that wins (win)
// or does not lose: one that completes a line if there is one, else the
// first in row-major order whose child the solver values so.
func certificateMove(ctx context.Context, s *Solver, p Position, win bool) (int, error) {
	g := s.g
	empty := g.Empty(p)
	for e := empty; e != 0; e &= e - 1 {
		if _, r := g.Play(p, bitIndex(e)); r == XWin || r == OWin {
			return bitIndex(e), nil
		}
	}
	for e := empty; e != 0; e &= e - 1 {
		_, v, err := moveValue(ctx, g, p, bitIndex(e), s.Solve)
		if err != nil {
			return 0, err
		}
		if v == Win || !win && v == Drawn {
			return bitIndex(e), nil
		}
	}
	return 0, fmt.Errorf("mnk: no move keeps the value of %s: the solver contradicts itself", g.String(p))
}

// bitIndex returns the lowest cell of a non-empty set.
func bitIndex(x uint64) int { return bits.TrailingZeros64(x) }

// Size returns the number of moves the certificate holds.
func (c *Certificate) Size() int {
	n := 0
	for _, st := range c.Strategies {
		n += len(st.Moves)
	}
	return n
}

const certificateMagic = "wopr mnk certificate 1"

// WriteTo writes the certificate as text: a header (the game, the root as
// a board in the format of Game.String, the value), then each strategy with its moves, one "X O cell"
// line each (the canonical position's bitboards in hexadecimal), sorted.
func (c *Certificate) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	fmt.Fprintf(cw, "%s\ngame %s\nroot %s\nvalue %s\n", certificateMagic, c.Game.Spec(), c.Game.String(c.Root), c.Value)
	for _, st := range c.Strategies {
		fmt.Fprintf(cw, "strategy %s %s %d\n", st.side(), st.goal(), len(st.Moves))
		keys := make([]Position, 0, len(st.Moves))
		for k := range st.Moves {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b Position) int {
			if less(a, b) {
				return -1
			}
			if less(b, a) {
				return 1
			}
			return 0
		})
		for _, k := range keys {
			fmt.Fprintf(cw, "%x %x %d\n", k.X, k.O, st.Moves[k])
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// ReadCertificate parses a certificate written by WriteTo. Errors name the
// line.
func ReadCertificate(r io.Reader) (*Certificate, error) {
	sc := bufio.NewScanner(r)
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return sc.Text(), true
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
	}
	header := func(name string) (string, error) {
		s, ok := next()
		if !ok {
			return "", bad("the file ends before its %q line", name)
		}
		v, found := strings.CutPrefix(s, name+" ")
		if !found {
			return "", bad("want %q, found %q", name+" ...", s)
		}
		return v, nil
	}
	if s, ok := next(); !ok || s != certificateMagic {
		return nil, bad("not a wopr mnk certificate (want the line %q)", certificateMagic)
	}
	spec, err := header("game")
	if err != nil {
		return nil, err
	}
	var rows, cols, k int
	if _, err := fmt.Sscanf(spec, "%d,%d,%d", &rows, &cols, &k); err != nil {
		return nil, bad("game %q: want rows,cols,k", spec)
	}
	g, err := New(rows, cols, k)
	if err != nil {
		return nil, bad("game %q: %v", spec, err)
	}
	c := &Certificate{Game: g}
	board, err := header("root")
	if err != nil {
		return nil, err
	}
	if c.Root, err = g.Parse(board); err != nil {
		return nil, bad("root: %v", err)
	}
	value, err := header("value")
	if err != nil {
		return nil, err
	}
	switch value {
	case Win.String():
		c.Value = Win
	case Loss.String():
		c.Value = Loss
	case Drawn.String():
		c.Value = Drawn
	default:
		return nil, bad("value %q: want %s, %s or %s", value, Win, Drawn, Loss)
	}
	for {
		s, ok := next()
		if !ok {
			break
		}
		f := strings.Fields(s)
		if len(f) != 4 || f[0] != "strategy" || (f[1] != "X" && f[1] != "O") || (f[2] != "win" && f[2] != "not-lose") {
			return nil, bad("want \"strategy X|O win|not-lose N\", found %q", s)
		}
		n, err := strconv.Atoi(f[3])
		if err != nil || n < 0 {
			return nil, bad("strategy size %q", f[3])
		}
		st := &Strategy{X: f[1] == "X", Win: f[2] == "win", Moves: make(map[Position]int8, n)}
		for range n {
			s, ok := next()
			if !ok {
				return nil, bad("the file ends inside the strategy of %s", st.side())
			}
			var p Position
			var cell int
			if _, err := fmt.Sscanf(s, "%x %x %d", &p.X, &p.O, &cell); err != nil || cell < 0 || cell > 63 {
				return nil, bad("want \"X O cell\" (hexadecimal bitboards, a cell), found %q", s)
			}
			if _, dup := st.Moves[p]; dup {
				return nil, bad("a second move for one position")
			}
			st.Moves[p] = int8(cell)
		}
		c.Strategies = append(c.Strategies, st)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// ErrCertificateTooBig is the error of a certificate that would visit more
// positions than allowed.
var ErrCertificateTooBig = errors.New("certificate too big")

// ErrCertificate is the error of a certificate that does not prove what it
// claims.
var ErrCertificate = errors.New("the certificate does not prove its value")

// Verify checks that the certificate proves its value: that it holds the
// strategies the value needs, and that each, played from the root against
// every reply of the other side, only ever reaches positions where its side
// won (a winning strategy) or where the game is won by its side or drawn (a
// strategy that does not lose). It uses only the rules (Play, the
// symmetries' Transform), not the solver. It returns the number of
// positions it visited.
func (c *Certificate) Verify(ctx context.Context) (int, error) {
	g := c.Game
	if err := g.Valid(c.Root); err != nil {
		return 0, fmt.Errorf("root: %v: %w", err, ErrCertificate)
	}
	if g.Status(c.Root) != Ongoing {
		return 0, fmt.Errorf("the root position is over: %w", ErrCertificate)
	}
	xToMove := c.Root.XToMove()
	var need []Strategy
	switch c.Value {
	case Win:
		need = []Strategy{{X: xToMove, Win: true}}
	case Loss:
		need = []Strategy{{X: !xToMove, Win: true}}
	default:
		need = []Strategy{{X: true}, {X: false}}
	}
	visited := 0
	for _, want := range need {
		var st *Strategy
		for _, s := range c.Strategies {
			if s.X == want.X && s.Win == want.Win {
				st = s
			}
		}
		if st == nil {
			return visited, fmt.Errorf("a value %s needs a strategy of %s to %s, which it lacks: %w", c.Value, want.side(), want.goal(), ErrCertificate)
		}
		v := verifier{g: g, st: st, ok: map[Position]bool{}}
		err := v.walk(ctx, c.Root, Ongoing)
		visited += v.visited
		if err != nil {
			return visited, err
		}
	}
	return visited, nil
}

type verifier struct {
	g       *Game
	st      *Strategy
	ok      map[Position]bool // canonical positions already checked
	visited int
}

// canonical is the least image of p under the board's symmetries, found
// with Transform, and the symmetry that gives it.
func (v *verifier) canonical(p Position) (Position, int) {
	best, bs := p, 0
	for s := 1; s < v.g.NumSymmetries(); s++ {
		if q := v.g.Transform(p, s); q.X < best.X || q.X == best.X && q.O < best.O {
			best, bs = q, s
		}
	}
	return best, bs
}

func (v *verifier) walk(ctx context.Context, p Position, r Result) error {
	g, st := v.g, v.st
	switch r {
	case XWin, OWin:
		if (r == XWin) == st.X {
			return nil
		}
		return fmt.Errorf("the strategy of %s to %s loses at %s: %w", st.side(), st.goal(), g.String(p), ErrCertificate)
	case Draw:
		if !st.Win {
			return nil
		}
		return fmt.Errorf("the strategy of %s to win draws at %s: %w", st.side(), g.String(p), ErrCertificate)
	}
	key, sym := v.canonical(p)
	if v.ok[key] {
		return nil
	}
	if v.visited++; v.visited&0xffff == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if p.XToMove() == st.X {
		m, found := st.Moves[key]
		if !found {
			return fmt.Errorf("the strategy of %s to %s has no move at %s: %w", st.side(), st.goal(), g.String(p), ErrCertificate)
		}
		// The cell of p whose image under sym is m.
		cell := -1
		for c := range 64 {
			if g.Mask()>>c&1 != 0 && g.Transform(Position{X: 1 << c}, sym).X == 1<<uint(m) {
				cell = c
				break
			}
		}
		if cell < 0 || g.Empty(p)>>cell&1 == 0 {
			return fmt.Errorf("the strategy of %s to %s plays on a taken or missing cell at %s: %w", st.side(), st.goal(), g.String(p), ErrCertificate)
		}
		q, res := g.Play(p, cell)
		if err := v.walk(ctx, q, res); err != nil {
			return err
		}
	} else {
		for e := g.Empty(p); e != 0; e &= e - 1 {
			q, res := g.Play(p, bitIndex(e))
			if err := v.walk(ctx, q, res); err != nil {
				return err
			}
		}
	}
	v.ok[key] = true
	return nil
}
