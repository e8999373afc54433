package count

import (
	"context"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// Distinct positions cannot be summed over subtrees of the game tree (the
// subtrees share positions), and a set of all positions does not scale. They
// are counted by reverse search (Avis and Fukuda, "Reverse search for
// enumeration", 1996): every reachable orbit but the empty board's gets a
// unique parent orbit, one stone fewer (see Parent); a depth-first
// walk of the resulting tree visits every orbit exactly once, needs no
// memory beyond its stack, and splits into independent subtrees.

// PositionCounts are counts of distinct reachable positions.
type PositionCounts struct {
	// Positions is the number of distinct positions, Canonical the number
	// of them up to symmetry (orbits).
	Positions, Canonical uint64
	// Terminal and CanonicalTerminal count the terminal positions,
	// indexed by Result (XWin, OWin, Draw); [Ongoing] is unused.
	Terminal, CanonicalTerminal [4]uint64
	// ByPly[n] is the number of distinct positions with n stones.
	ByPly [65]uint64
}

// Add adds the counts of o to pc.
func (pc *PositionCounts) Add(o *PositionCounts) {
	pc.Positions += o.Positions
	pc.Canonical += o.Canonical
	for i := range pc.Terminal {
		pc.Terminal[i] += o.Terminal[i]
		pc.CanonicalTerminal[i] += o.CanonicalTerminal[i]
	}
	for i := range pc.ByPly {
		pc.ByPly[i] += o.ByPly[i]
	}
}

// Parent returns the parent of the reachable position q (with at
// least one stone) in the reverse-search tree, computed on q as given: q
// without one stone of the last mover, the one with the highest bit index
// if q has no line, else the highest-index one whose removal leaves no line
// (such a stone exists exactly when q is reachable). The result is
// undefined for the empty board and for unreachable positions.
func Parent(g *mnk.Game, q mnk.Position) mnk.Position {
	return parent(g, q, q.Ply(), g.HasLine(q.X) || g.HasLine(q.O))
}

// parent is Parent for a q at ply known to have a line or not.
func parent(g *mnk.Game, q mnk.Position, ply int, line bool) mnk.Position {
	last := &q.O
	if ply&1 == 1 {
		last = &q.X
	}
	cand := *last
	if line {
		// The stones whose removal leaves no line are those in every
		// completed window.
		inter, _ := g.Completed(*last)
		cand &= inter
	}
	if cand != 0 {
		*last &^= 1 << (63 - bits.LeadingZeros64(cand))
	}
	return q
}

// Positions counts the distinct positions in the subtree of the
// reverse-search tree rooted at Canonical(root), root included: for the
// empty board, all reachable positions of the game. root must be valid.
//
// The subtrees of the orbits at one ply partition everything below them:
// the orbits at plies below s plus Positions of every orbit at ply s
// (see Walk) are the whole game's counts.
func Positions(g *mnk.Game, root mnk.Position) PositionCounts {
	pc, _ := PositionsContext(context.Background(), g, root)
	return pc
}

// PositionsContext is Positions stopped when ctx is done, with
// ctx's error.
func PositionsContext(ctx context.Context, g *mnk.Game, root mnk.Position) (PositionCounts, error) {
	if err := ctx.Err(); err != nil {
		return PositionCounts{}, err
	}
	w := walker{g: g, maxPly: 64}
	if ctx.Done() != nil {
		w.ctx = ctx
	}
	w.start(root)
	if w.abort {
		return PositionCounts{}, ctx.Err()
	}
	return w.pc, nil
}

// Walk walks the reverse-search tree from Canonical(root) down to
// maxPly stones, calling fn(p, orbit, r) for every canonical position p
// visited (parents before children), with the size of its orbit and its
// result, and returns the counts of the positions visited. With maxPly = s
// it lists the roots of the subtrees for Positions at ply s.
func Walk(g *mnk.Game, root mnk.Position, maxPly int, fn func(p mnk.Position, orbit int, r mnk.Result)) PositionCounts {
	w := walker{g: g, maxPly: maxPly, fn: fn}
	w.start(root)
	return w.pc
}

type walker struct {
	g      *mnk.Game
	maxPly int
	fn     func(mnk.Position, int, mnk.Result)
	pc     PositionCounts
	ctx    context.Context // polled every pollMask+1 positions, if set
	abort  bool
	kids   [65][64]wkid
}

type wkid struct {
	p   mnk.Position
	res mnk.Result
}

func (w *walker) start(root mnk.Position) {
	p, orbit := w.g.Canonical(root)
	ply := p.Ply()
	if ply > w.maxPly {
		return
	}
	w.visit(p, ply, orbit, w.g.Status(p))
}

func (w *walker) visit(p mnk.Position, ply, orbit int, res mnk.Result) {
	g, pc := w.g, &w.pc
	if w.ctx != nil && pc.Canonical&pollMask == 0 && w.ctx.Err() != nil {
		w.abort = true
	}
	if w.abort {
		return
	}
	pc.Positions += uint64(orbit)
	pc.Canonical++
	pc.ByPly[ply] += uint64(orbit)
	if w.fn != nil {
		w.fn(p, orbit, res)
	}
	if res != mnk.Ongoing {
		pc.Terminal[res] += uint64(orbit)
		pc.CanonicalTerminal[res]++
		return
	}
	if ply == w.maxPly {
		return
	}
	kids := &w.kids[ply]
	n := 0
	xToMove := ply&1 == 0
	im, nsym := g.Images(p)
	for e := g.Empty(p); e != 0; e &= e - 1 {
		cell := bits.TrailingZeros64(e)
		_, r := g.Place(p, cell, xToMove)
		q, _ := g.ChildCanonical(&im, nsym, cell, xToMove)
		if par, _ := g.CanonicalSym(parent(g, q, ply+1, r == mnk.XWin || r == mnk.OWin)); par != p {
			continue
		}
		i := 0
		for i < n && kids[i].p != q {
			i++
		}
		if i == n {
			kids[n] = wkid{q, r}
			n++
		}
	}
	for i := range n {
		k := kids[i]
		_, orbit := g.Canonical(k.p)
		w.visit(k.p, ply+1, orbit, k.res)
	}
}
