package solve

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/cert"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/exact"
)

// NewCertificate extracts, with the solver s, the strategies that prove the
// value of root: at each position of the proving side it takes the first
// move, in row-major order, that keeps the value (a move that completes a
// line first), and it follows every reply of the other side. progress, if
// not nil, is called with the number of positions visited now and then. A
// certificate grows with every reply it must answer, so quickly that a
// draw of 5x5 is out of reach (pns.NewCertificate ends the draws sooner,
// in pairings); past maxPositions positions visited (0: no limit) it stops
// with cert.ErrTooBig.
func NewCertificate(ctx context.Context, s *Solver, root mnk.Position, maxPositions int, progress func(positions int)) (*cert.Certificate, error) {
	g := s.g
	v, err := s.Solve(ctx, root)
	if err != nil {
		return nil, err
	}
	c := cert.New(g, root, v)
	visited := 0
	for _, st := range c.Strategies {
		st.Moves = map[mnk.Position]int8{}
		seen := map[mnk.Position]bool{}
		var walk func(p mnk.Position) error
		walk = func(p mnk.Position) error {
			if g.Status(p) != mnk.Ongoing {
				return nil
			}
			key, sym := g.CanonicalSym(p)
			if seen[key] {
				return nil
			}
			seen[key] = true
			if visited++; maxPositions > 0 && visited > maxPositions {
				return fmt.Errorf("%w: more than %d positions", cert.ErrTooBig, maxPositions)
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
			st.Moves[key] = g.MapCell(sym, cell)
			q, _ := g.Play(p, cell)
			return walk(q)
		}
		if err := walk(root); err != nil {
			return nil, err
		}
	}
	// The positions below the moves that the verifier's zones answer go
	// (cert.Certificate.Prune).
	if _, err := c.Prune(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the certificate written does not verify: %w", err)
	}
	return c, nil
}

// certificateMove returns a move of the side to move at p that wins (win)
// or does not lose: one that completes a line if there is one, else the
// first in row-major order whose child the solver values so.
func certificateMove(ctx context.Context, s *Solver, p mnk.Position, win bool) (int, error) {
	g := s.g
	empty := g.Empty(p)
	for e := empty; e != 0; e &= e - 1 {
		if _, r := g.Play(p, bitIndex(e)); r == mnk.XWin || r == mnk.OWin {
			return bitIndex(e), nil
		}
	}
	for e := empty; e != 0; e &= e - 1 {
		_, v, err := exact.Move(ctx, g, p, bitIndex(e), s.Solve)
		if err != nil {
			return 0, err
		}
		if v == mnk.Win || !win && v == mnk.Drawn {
			return bitIndex(e), nil
		}
	}
	return 0, fmt.Errorf("solve: no move keeps the value of %s: the solver contradicts itself", g.String(p))
}

// bitIndex returns the lowest cell of a non-empty set.
func bitIndex(x uint64) int { return bits.TrailingZeros64(x) }
