package pns

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/cert"
)

// NewCertificate extracts, with a proof-number solver of g, the
// strategies that prove the value of root. Where the side of a strategy
// that does not lose has a pairing or a matching (see cert.Strategy) and
// the other side is to move, or where the other side can no longer
// complete a line, the strategy stops: that is what keeps the
// certificates of the k = 5 draws small, as the pairings keep the
// solver's proofs small. Elsewhere it answers the other side's moves
// that the verifier's zones do not (cert.Certificate.Build walks the
// strategies as the verifier will, so no position below a move the zones
// answer is proven or written), and at each position of its own side it
// takes a move that completes a line, else the block of the other side's
// line, else a move making two threats, else the move with which the
// solver's table proved the position, else the first move (row-major)
// whose position the solver proves again. Positions the table lost are
// proven again, so a small table costs time, not correctness; the
// certificate is only as good as Verify finds it. Past maxPositions
// positions visited (0: no limit) it stops with cert.ErrTooBig. progress,
// if not nil, is called with the number of positions visited now and
// then.
func NewCertificate(ctx context.Context, s *Solver, root mnk.Position, maxPositions int, progress func(positions int)) (*cert.Certificate, error) {
	v, err := s.Solve(ctx, root)
	if err != nil {
		return nil, err
	}
	c := cert.New(s.g, root, v)
	for _, st := range c.Strategies {
		initMaps(st)
	}
	if _, err := c.Build(ctx, newExtractor(ctx, s, maxPositions, progress).choose); err != nil {
		return nil, extractionError(ctx, err)
	}
	return c, nil
}

// initMaps gives st the empty maps that its choices go to.
func initMaps(st *cert.Strategy) {
	st.Moves = map[mnk.Position]int8{}
	if !st.Win {
		st.Pairings = map[mnk.Position][]cert.Pair{}
		st.Matchings = map[mnk.Position][][]int8{}
	}
}

// extractionError is the error of an extraction that failed with err:
// interrupted, too big, or a bug (what the solver proved does not
// verify).
func extractionError(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, cert.ErrTooBig) {
		return err
	}
	return fmt.Errorf("the strategies written do not verify: %w", err)
}

// NewStrategy extracts, with a proof-number solver of g, the strategy of X
// (x) or O to win (win) or not to lose from root, as NewCertificate
// extracts a certificate's: a part of a strategy (cert.Strategy.Parts),
// which a worker builds beside others. ok is false, with no strategy,
// where the goal does not hold at root.
func NewStrategy(ctx context.Context, s *Solver, root mnk.Position, x, win bool, maxPositions int, progress func(positions int)) (st *cert.Strategy, ok bool, err error) {
	attWins, err := s.Prove(ctx, root, x == win)
	if err != nil || attWins != win {
		return nil, false, err
	}
	st = &cert.Strategy{X: x, Win: win}
	initMaps(st)
	if _, _, err := cert.CheckStrategy(ctx, s.g, root, st, newExtractor(ctx, s, maxPositions, progress).choose); err != nil {
		return nil, false, extractionError(ctx, err)
	}
	return st, true, nil
}

func newExtractor(ctx context.Context, s *Solver, maxPositions int, progress func(int)) *proofExtractor {
	return &proofExtractor{g: s.g, s: s, ctx: ctx, lines: cert.Lines(s.g.Rows, s.g.Cols, s.g.K), max: maxPositions, progress: progress}
}

type proofExtractor struct {
	g        *mnk.Game
	s        *Solver
	ctx      context.Context
	lines    []uint64
	max      int
	progress func(int)

	st      *cert.Strategy
	attX    bool
	visited int
}

// sides returns the stones of the strategy's side and of the other.
func (x *proofExtractor) sides(p mnk.Position) (me, them uint64) {
	if x.st.X {
		return p.X, p.O
	}
	return p.O, p.X
}

// choose is the cert.Chooser of NewCertificate: the choice of st at p, a
// canonical position where the game goes on and the other side is not
// hopeless.
func (x *proofExtractor) choose(st *cert.Strategy, p mnk.Position) error {
	// The question the solver answers for this strategy: does the winner
	// win, or does the other side of a strategy that does not lose win?
	x.st, x.attX = st, st.X == st.Win
	if x.visited++; x.max > 0 && x.visited > x.max {
		return fmt.Errorf("%w: more than %d positions", cert.ErrTooBig, x.max)
	}
	if x.visited&0xff == 0 {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if x.progress != nil {
			x.progress(x.visited)
		}
	}
	toMove := p.XToMove() == st.X
	// A pairing is looked for only where the other side is to move, as
	// the solver does: where the side itself is to move, a search finds
	// few pairings that the next ply would not, at a cost that dominates
	// the extraction (BenchmarkProofCertificate775).
	if !st.Win && !toMove {
		if pairs, ok := x.s.pairing(p, st.X); ok {
			out := make([]cert.Pair, len(pairs))
			for i, pr := range pairs {
				out[i] = cert.Pair{int8(bits.TrailingZeros64(pr)), int8(63 - bits.LeadingZeros64(pr))}
			}
			st.Pairings[p] = out
			return nil
		}
		if blocks, ok := x.s.matchingOf(p, st.X); ok {
			out := make([][]int8, len(blocks))
			for i, b := range blocks {
				for c := b; c != 0; c &= c - 1 {
					out[i] = append(out[i], int8(bits.TrailingZeros64(c)))
				}
			}
			st.Matchings[p] = out
			return nil
		}
	}
	if !toMove {
		return nil
	}
	cell, err := x.move(p)
	if err != nil {
		return err
	}
	st.Moves[p] = int8(cell)
	return nil
}

// move returns a move of the strategy's side, to move at p, after which
// its goal still holds.
func (x *proofExtractor) move(p mnk.Position) (int, error) {
	g := x.g
	me, them := x.sides(p)
	empty := g.Empty(p)
	for e := empty; e != 0; e &= e - 1 {
		if c := bitIndex(e); g.LineThrough(me|1<<uint(c), c) {
			return c, nil
		}
	}
	var block uint64
	for e := empty; e != 0; e &= e - 1 {
		if c := bitIndex(e); g.LineThrough(them|1<<uint(c), c) {
			block |= 1 << uint(c)
		}
	}
	if block != 0 {
		if block&(block-1) != 0 {
			return 0, x.contradiction(p)
		}
		return bitIndex(block), nil
	}
	// A move on two lines free of the other side's stones that each lack
	// it and one more cell, not the same one, makes two threats; the other
	// side has no line to complete first and blocks one.
	var halves [256]uint64
	nh := 0
	k2 := g.K - 2
	for _, w := range x.lines {
		if w&them == 0 && bits.OnesCount64(w&me) == k2 && k2 >= 0 && nh < len(halves) {
			halves[nh] = w &^ me
			nh++
		}
	}
	for i := 1; i < nh; i++ {
		for j := range i {
			if both := halves[i] & halves[j]; both != 0 && halves[i] != halves[j] {
				return bitIndex(both), nil
			}
		}
	}
	if c, ok, err := x.tableMove(p); err != nil || ok {
		return c, err
	}
	// The table lost p's proof, or holds none with a move (a rule decided
	// p): prove it again.
	if _, err := x.s.Prove(x.ctx, p, x.attX); err != nil {
		return 0, err
	}
	if c, ok, err := x.tableMove(p); err != nil || ok {
		return c, err
	}
	for _, prove := range [2]bool{false, true} {
		for e := empty; e != 0; e &= e - 1 {
			ok, err := x.keeps(p, bitIndex(e), prove)
			if err != nil {
				return 0, err
			}
			if ok {
				return bitIndex(e), nil
			}
		}
	}
	return 0, x.contradiction(p)
}

func (x *proofExtractor) contradiction(p mnk.Position) error {
	return fmt.Errorf("pns: no move of %s keeps its goal (%s) at %s: the solver contradicts itself", x.st.Side(), x.st.Goal(), x.g.String(p))
}

// tableMove returns the move with which the table proved the goal of the
// side to move at p, if it holds one and the move keeps the goal.
func (x *proofExtractor) tableMove(p mnk.Position) (int, bool, error) {
	g := x.g
	canon, sym := g.CanonicalSym(p)
	phi, _, m, ok := x.s.tt.probe(canon.X, canon.O, x.attX)
	if !ok || phi != 0 || m < 0 {
		return 0, false, nil
	}
	c := int(g.UnmapCell(sym, m))
	if c < 0 || g.Empty(p)>>uint(c)&1 == 0 {
		return 0, false, nil
	}
	keeps, err := x.keeps(p, c, true)
	return c, keeps, err
}

// keeps reports whether the move on cell keeps the goal of the strategy's
// side, to move at p: from the table, or, if prove and the table does not
// know, by proving it again.
func (x *proofExtractor) keeps(p mnk.Position, cell int, prove bool) (bool, error) {
	g := x.g
	q, r := g.Play(p, cell)
	switch r {
	case mnk.XWin, mnk.OWin:
		return (r == mnk.XWin) == x.st.X, nil
	case mnk.Draw:
		return !x.st.Win, nil
	}
	// The numbers of q are those of the other side's goal, which is met
	// when the side's is not.
	canon, _ := g.CanonicalSym(q)
	if phi, delta, _, ok := x.s.tt.probe(canon.X, canon.O, x.attX); ok && (phi == 0 || delta == 0) {
		return delta == 0, nil
	}
	if !prove {
		return false, nil
	}
	attWins, err := x.s.Prove(x.ctx, q, x.attX)
	return attWins == x.st.Win, err
}

// bitIndex returns the lowest cell of a non-empty set.
func bitIndex(x uint64) int { return bits.TrailingZeros64(x) }
