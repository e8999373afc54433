package rating

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// Technique is a kind of step, from the easiest.
type Technique uint8

// The techniques, in the order the solver tries them up to DynamicForcing;
// those after it were added later and are appended, since a Result's Used
// bits are kept in job results: AlignedTripleExclusion is tried after
// TUVWXYZWing.
const (
	HiddenSingle Technique = iota
	DirectPointing
	DirectClaiming
	DirectHiddenPair
	NakedSingle
	DirectHiddenTriple
	Pointing
	Claiming
	NakedPair
	XWing
	HiddenPair
	NakedTriple
	Swordfish
	HiddenTriple
	TurbotFish
	XYWing
	XYZWing
	UniqueRectangle
	NakedQuad
	Jellyfish
	HiddenQuad
	ThreeStrongLinks
	WXYZWing
	BUG
	FourStrongLinks
	VWXYZWing
	AlignedPairExclusion
	UVWXYZWing
	XChain
	YChain
	AIC
	TUVWXYZWing
	Nishio
	CellForcing
	RegionForcing
	DynamicForcing
	AlignedTripleExclusion
	DynamicForcingPlus
	NestedForcing
	NestedMultiple
	NestedDynamic
	numTechniques
)

var techniqueNames = [numTechniques]string{
	"hidden single", "direct pointing", "direct claiming", "direct hidden pair", "naked single",
	"direct hidden triple", "pointing", "claiming", "naked pair", "x-wing", "hidden pair",
	"naked triple", "swordfish", "hidden triple", "turbot fish", "xy-wing", "xyz-wing",
	"unique rectangle", "naked quad", "jellyfish", "hidden quad", "three strong links",
	"wxyz-wing", "bug", "four strong links", "vwxyz-wing", "aligned pair exclusion",
	"uvwxyz-wing", "x-chain", "y-chain", "alternating inference chain", "tuvwxyz-wing",
	"nishio forcing chain", "cell forcing chain", "region forcing chain",
	"dynamic forcing chain", "aligned triple exclusion",
	"dynamic forcing chain (+)", "nested forcing chain (+ forcing chains)",
	"nested forcing chain (+ multiple forcing chains)", "nested forcing chain (+ dynamic forcing chains)",
}

func (t Technique) String() string {
	if t < numTechniques {
		return techniqueNames[t]
	}
	return fmt.Sprintf("technique(%d)", t)
}

// Techniques returns every technique's name, indexed by Technique.
func Techniques() []string { return techniqueNames[:] }

// tryOrder is every technique in the order stepOnce tries them, from the
// easiest (the constants' order, but for those appended later).
var tryOrder = [numTechniques]Technique{
	HiddenSingle, DirectPointing, DirectClaiming, DirectHiddenPair, NakedSingle,
	DirectHiddenTriple, Pointing, Claiming, NakedPair, XWing, HiddenPair, NakedTriple,
	Swordfish, HiddenTriple, TurbotFish, XYWing, XYZWing, UniqueRectangle, NakedQuad,
	Jellyfish, HiddenQuad, ThreeStrongLinks, WXYZWing, BUG, FourStrongLinks, VWXYZWing,
	AlignedPairExclusion, UVWXYZWing, XChain, YChain, AIC, TUVWXYZWing,
	AlignedTripleExclusion, Nishio, CellForcing, RegionForcing, DynamicForcing,
	DynamicForcingPlus, NestedForcing, NestedMultiple, NestedDynamic,
}

// InOrder returns every technique from the easiest, in the order the
// solver tries them: the order for a report.
func InOrder() []Technique { return tryOrder[:] }

// Step is one step of a solution, for Explain.
type Step struct {
	Technique Technique
	Rating    int    // tenths of the Explainer scale
	Text      string // "r3c5: hidden single 7 in box 2"
}

// Result is what Rate finds.
type Result struct {
	// Rating is the hardest step in tenths (23 is 2.3); 0 if the puzzle
	// was not solved.
	Rating int
	// Solved tells whether the techniques solved the puzzle; if not,
	// Rating is that of the steps made.
	Solved bool
	Steps  int
	// Used has bit t set for each technique t used.
	Used uint64
	// Hardest is the technique of the hardest step.
	Hardest Technique
}

// Solver rates puzzles; it holds its tables and buffers, so one Solver
// rates any number of puzzles without allocating. It is not safe for
// concurrent use.
type Solver struct {
	cand   [81]uint16 // candidates of each cell (0 once placed)
	val    [81]uint8
	dcells [9]cellSet // the cells where each digit is a candidate
	left   int
	// Kept as the candidates change, for the singles: the empty cells,
	// how many each unit has, how many places each digit has in each
	// unit, and the digits (bit d-1) with one place in each unit.
	open   cellSet
	empty  [27]uint8
	places [27][9]uint8
	once   [27]uint16

	res     Result
	explain bool
	// ceiling is the hardest rating wanted: past it, run stops (rateUpTo).
	ceiling int
	// ctx, if set, stops the rating once done: between steps and between
	// the cells of a forcing chain search (RateContext).
	ctx   context.Context
	steps []Step

	// truth, if set, is the solution every step is checked against (tests).
	truth *sudoku.Grid
	wrong string

	ch   chainer
	pick [9]int // combos' subsets
	sl   slSearch
	mem  scanMemory
}

// NewSolver returns a Solver.
func NewSolver() *Solver { return &Solver{} }

// load sets the grid to the puzzle's givens with all other candidates; ok
// is false if two givens conflict.
func (s *Solver) load(g *sudoku.Grid) bool {
	for i := range s.cand {
		s.cand[i] = 0x1ff
		s.val[i] = 0
	}
	for d := range s.dcells {
		s.dcells[d] = allCells
	}
	s.left = 81
	s.counted()
	for i, v := range g {
		if v >= 1 && v <= 9 {
			if s.cand[i]&(1<<(v-1)) == 0 {
				return false
			}
			s.place(i, int(v))
		}
	}
	return true
}

// counted resets the scan memory and counts the empty cells and places
// of the grid as it is.
func (s *Solver) counted() {
	s.mem.reset()
	s.open = cellSet{}
	for u := range 27 {
		s.empty[u], s.once[u] = 0, 0
		for d := range 9 {
			n := s.positions(u, d+1).count()
			s.places[u][d] = uint8(n)
			if n == 1 {
				s.once[u] |= 1 << d
			}
		}
		for _, i := range unitCells[u] {
			if s.val[i] == 0 {
				s.empty[u]++
				s.open.add(i)
			}
		}
	}
}

// lose counts that digit d (from 0) is no longer a candidate of cell i.
func (s *Solver) lose(i, d int) {
	for _, u := range cellUnit[i] {
		n := s.places[u][d] - 1
		s.places[u][d] = n
		switch n {
		case 1:
			s.once[u] |= 1 << d
		case 0:
			s.once[u] &^= 1 << d
		}
	}
}

func (s *Solver) place(i, d int) {
	if s.truth != nil && s.wrong == "" && int(s.truth[i]) != d {
		s.wrong = fmt.Sprintf("placed %d at %s, solution %d", d, cellName(i), s.truth[i])
	}
	bit := uint16(1) << (d - 1)
	s.elim(i, s.cand[i]&^bit)
	s.val[i] = uint8(d)
	s.cand[i] = 0
	s.dcells[d-1] = s.dcells[d-1].andNot(single(i))
	s.mem.changed(i, bit)
	s.lose(i, d-1)
	s.open = s.open.andNot(single(i))
	for _, u := range cellUnit[i] {
		s.empty[u]--
	}
	s.left--
	peers[i].and(s.dcells[d-1]).each(func(j int) { s.elim(j, bit) })
}

// elim removes the digits m from cell i's candidates; it tells whether
// any was there.
func (s *Solver) elim(i int, m uint16) bool {
	m &= s.cand[i]
	if m == 0 {
		return false
	}
	if s.truth != nil && s.wrong == "" && m&(1<<(s.truth[i]-1)) != 0 {
		s.wrong = fmt.Sprintf("removed %d from %s, the solution's digit", s.truth[i], cellName(i))
	}
	s.cand[i] &^= m
	s.mem.changed(i, m)
	for ; m != 0; m &= m - 1 {
		d := bits.TrailingZeros16(m)
		s.dcells[d] = s.dcells[d].andNot(single(i))
		s.lose(i, d)
	}
	return true
}

// elimSet removes digit d from the cells of set; it tells whether any
// was there.
func (s *Solver) elimSet(set cellSet, d int) bool {
	set = set.and(s.dcells[d-1])
	set.each(func(j int) { s.elim(j, 1<<(d-1)) })
	return !set.empty()
}

// Rate solves the puzzle with the techniques and rates it. The puzzle
// should have a unique solution (sudoku.Solver.Classify tells); a puzzle
// with several is rated by the steps it allows and is not Solved.
func (s *Solver) Rate(g sudoku.Grid) Result {
	s.explain = false
	return s.run(&g, noCeiling)
}

const noCeiling = 1 << 30

// RateContext is Rate that stops, with ctx's error, once ctx is done:
// the nested forcing chains of the hardest puzzles take a minute and more
// a puzzle.
func (s *Solver) RateContext(ctx context.Context, g sudoku.Grid) (Result, error) {
	s.explain, s.ctx = false, ctx
	defer func() { s.ctx = nil }()
	r := s.run(&g, noCeiling)
	return r, ctx.Err()
}

// RateUpTo is Rate for a caller that wants ratings up to max (tenths)
// only: a puzzle that needs a harder step comes back unsolved, without
// the time its chains would take.
func (s *Solver) RateUpTo(g sudoku.Grid, max int) Result { return s.rateUpTo(g, max) }

// halted tells whether the context of RateContext is done.
func (s *Solver) halted() bool { return s.ctx != nil && s.ctx.Err() != nil }

// rateUpTo is Rate for a caller that wants ratings up to max only: it
// stops, with Solved false, as soon as a step is rated above max or every
// technique left starts above it, sparing the chains of hard puzzles.
func (s *Solver) rateUpTo(g sudoku.Grid, max int) Result {
	s.explain = false
	return s.run(&g, max)
}

// Explain is Rate with the steps in words.
func (s *Solver) Explain(g sudoku.Grid) (Result, []Step) { return s.ExplainUpTo(g, noCeiling) }

// ExplainUpTo is Explain for a caller that wants steps up to max (tenths)
// only, as RateUpTo.
func (s *Solver) ExplainUpTo(g sudoku.Grid, max int) (Result, []Step) {
	s.explain, s.steps = true, nil
	r := s.run(&g, max)
	s.explain = false
	return r, s.steps
}

func (s *Solver) run(g *sudoku.Grid, ceiling int) Result {
	s.res = Result{}
	s.wrong, s.ceiling = "", ceiling
	if !s.load(g) {
		return s.res
	}
	for s.left > 0 && s.wrong == "" && s.res.Rating <= ceiling && !s.halted() && s.stepOnce() {
	}
	s.res.Solved = s.left == 0
	return s.res
}

// stepOnce makes one step with the first technique, in the Explainer's
// order, that finds one; each technique applies its own easiest step.
// From naked quads on, a technique is tried only if it or one after it
// can rate within the ceiling (upTo: the lowest rating from there on).
func (s *Solver) stepOnce() bool {
	return s.hiddenSingle() || s.directLocking() || s.hiddenSet(2, true) ||
		s.nakedSingle() || s.hiddenSet(3, true) || s.locking() ||
		s.nakedSet(2) || s.fish(2) || s.hiddenSet(2, false) ||
		s.nakedSet(3) || s.fish(3) || s.hiddenSet(3, false) ||
		s.strongLinks(2) || s.xyWing() || s.xyzWing() || s.uniqueLoops() ||
		s.upTo(50) && s.nakedSet(4) || s.upTo(52) && s.fish(4) ||
		s.upTo(54) && (s.hiddenSet(4, false) || s.strongLinks(3)) ||
		s.upTo(55) && s.alsWing(3) || s.upTo(56) && s.bug() || s.upTo(58) && s.strongLinks(4) ||
		s.upTo(62) && (s.alsWing(4) || s.alignedPair()) ||
		s.upTo(65) && (s.alsWing(5) || s.staticChains()) ||
		s.upTo(75) && (s.alsWing(6) || s.alignedTriple() || s.forcing(Nishio, 75, false, true, true, 0)) ||
		s.upTo(80) && s.forcing(CellForcing, 80, true, false, false, 0) ||
		s.upTo(85) && s.forcing(DynamicForcing, 85, true, true, false, 0) ||
		s.nestedUpTo(90) && s.forcing(DynamicForcingPlus, 90, true, true, false, 1) ||
		s.nestedUpTo(95) && s.forcing(NestedForcing, 95, true, true, false, 2) ||
		s.nestedUpTo(100) && s.forcing(NestedMultiple, 100, true, true, false, 3) ||
		s.nestedUpTo(105) && s.nestedDynamic()
}

// upTo tells whether a technique whose steps rate at least r may be tried.
func (s *Solver) upTo(r int) bool { return r <= s.ceiling }

// record counts a step; text is called only when explaining.
func (s *Solver) record(t Technique, rating int, text func() string) {
	s.res.Steps++
	s.res.Used |= 1 << t
	if rating > s.res.Rating {
		s.res.Rating, s.res.Hardest = rating, t
	}
	if s.explain {
		s.steps = append(s.steps, Step{Technique: t, Rating: rating, Text: text()})
	}
}

// positions returns the cells of unit u where digit d is a candidate.
func (s *Solver) positions(u, d int) cellSet { return unitSet[u].and(s.dcells[d-1]) }

func (s *Solver) hiddenSingle() bool {
	// The last empty cell of a unit (1.0), then a digit's only place in a
	// box (1.2), then in a row or column (1.5).
	for u := range 27 {
		if s.empty[u] != 1 {
			continue
		}
		if last := unitSet[u].and(s.open).first(); s.cand[last] != 0 {
			d := bits.TrailingZeros16(s.cand[last]) + 1
			s.place(last, d)
			s.record(HiddenSingle, 10, func() string {
				return fmt.Sprintf("%s: last empty cell of %s, %d", cellName(last), unitName(u), d)
			})
			return true
		}
	}
	for u := range 27 {
		if s.once[u] != 0 {
			d := bits.TrailingZeros16(s.once[u]) + 1
			i := s.positions(u, d).first()
			s.place(i, d)
			rating := 12
			if u >= 9 {
				rating = 15
			}
			s.record(HiddenSingle, rating, func() string {
				return fmt.Sprintf("%s: hidden single %d in %s", cellName(i), d, unitName(u))
			})
			return true
		}
	}
	return false
}

func (s *Solver) nakedSingle() bool {
	for i := range 81 {
		if c := s.cand[i]; c != 0 && c&(c-1) == 0 {
			d := bits.TrailingZeros16(c) + 1
			s.place(i, d)
			s.record(NakedSingle, 23, func() string { return fmt.Sprintf("%s: naked single %d", cellName(i), d) })
			return true
		}
	}
	return false
}

// lockedSets calls f with each box-line intersection of a digit's places
// that eliminates: from the unit "from" (a box for pointing) all places
// lie in the unit "to"; the eliminated cells are the rest of "to".
func (s *Solver) lockedSets(k scan, f func(from, to, d int, elim cellSet) bool) bool {
	digits := s.mem.newDigits(k)
	for pass := range 2 {
		for from := range 27 {
			if (pass == 0) != (from < 9) {
				continue
			}
			for d := 1; d <= 9; d++ {
				if digits>>(d-1)&1 == 0 {
					continue
				}
				p := s.positions(from, d)
				if p.count() < 2 {
					continue
				}
				for _, to := range cellUnit[p.first()] {
					if to == from || (from < 9) == (to < 9) || !p.andNot(unitSet[to]).empty() {
						continue
					}
					e := s.positions(to, d).andNot(unitSet[from])
					if !e.empty() && f(from, to, d, e) {
						return true
					}
				}
			}
		}
	}
	s.mem.nothing(k)
	return false
}

func (s *Solver) directLocking() bool {
	return s.lockedSets(scanDirectLocking, func(from, to, d int, e cellSet) bool {
		// Direct: the eliminations leave another unit of from's kind
		// (a box for pointing, a line of to's... of from's kind for
		// claiming) with one place for d.
		target, tu := -1, -1
		for u3 := range 27 {
			if u3 == from || (u3 < 9) != (from < 9) || (from >= 9 && (u3 < 18) != (from < 18)) || unitSet[u3].and(unitSet[to]).empty() {
				continue
			}
			p3 := s.positions(u3, d)
			if rest := p3.andNot(unitSet[to]); p3.count() > 1 && rest.count() == 1 {
				target, tu = rest.first(), u3
				break
			}
		}
		if target < 0 {
			return false
		}
		// As the Explainer's direct hints, only the single is placed:
		// the eliminations that reveal it are not made.
		s.place(target, d)
		t, rating := DirectPointing, 17
		if from >= 9 {
			t, rating = DirectClaiming, 19
		}
		s.record(t, rating, func() string {
			return fmt.Sprintf("%s: %s %d in %s and %s, then hidden single in %s", cellName(target), t, d, unitName(from), unitName(to), unitName(tu))
		})
		return true
	})
}

func (s *Solver) locking() bool {
	return s.lockedSets(scanLocking, func(from, to, d int, e cellSet) bool {
		s.elimSet(e, d)
		t, rating := Pointing, 26
		if from >= 9 {
			t, rating = Claiming, 28
		}
		s.record(t, rating, func() string {
			return fmt.Sprintf("%s %d: in %s only in %s, removed from %s", t, d, unitName(from), unitName(to), cellsText(e))
		})
		return true
	})
}

func cellsText(e cellSet) string {
	var b []byte
	e.each(func(i int) {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, cellName(i)...)
	})
	return string(b)
}

// combos calls f with each subset of n of the items, in lexicographic
// order, until f returns true. The subset is passed in buf, which the
// caller owns (a Solver's pick): passing a slice of a local array to f
// would move the array to the heap at every call.
func combos(buf *[9]int, items []int, n int, f func(pick []int) bool) bool {
	if n > len(items) {
		return false
	}
	var idx [9]int
	for i := range n {
		idx[i] = i
	}
	for {
		for i := range n {
			buf[i] = items[idx[i]]
		}
		if f(buf[:n]) {
			return true
		}
		i := n - 1
		for i >= 0 && idx[i] == len(items)-n+i {
			i--
		}
		if i < 0 {
			return false
		}
		idx[i]++
		for j := i + 1; j < n; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// sets calls f with each subset of n of the items whose masks have at
// most n bits together, in lexicographic order, until f returns true:
// combos without the subsets that cannot be a naked or hidden set or a
// fish, whose prefixes are cut as soon as their masks pass n bits.
func sets(buf *[9]int, items []int, masks *[9]uint16, n int, f func(pick []int) bool) bool {
	return setsFrom(buf, items, masks, n, 0, 0, 0, f)
}

func setsFrom(buf *[9]int, items []int, masks *[9]uint16, n, k, from int, union uint16, f func(pick []int) bool) bool {
	if k == n {
		return f(buf[:n])
	}
	for i := from; i <= len(items)-(n-k); i++ {
		u := union | masks[i]
		if bits.OnesCount16(u) > n {
			continue
		}
		buf[k] = items[i]
		if setsFrom(buf, items, masks, n, k+1, i+1, u, f) {
			return true
		}
	}
	return false
}

var nakedRatings = [5]int{0, 0, 30, 36, 50}
var nakedNames = [5]Technique{0, 0, NakedPair, NakedTriple, NakedQuad}

func (s *Solver) nakedSet(n int) bool {
	var cells [9]int
	var masks [9]uint16
	key := scanNaked2 + scan(n-2)
	units := s.mem.newUnits(key)
	for u := range 27 {
		if units>>u&1 == 0 {
			continue
		}
		k := 0
		for _, i := range unitCells[u] {
			if c := s.cand[i]; c != 0 && bits.OnesCount16(c) <= n {
				cells[k], masks[k] = i, c
				k++
			}
		}
		if k < n {
			continue
		}
		if sets(&s.pick, cells[:k], &masks, n, func(pick []int) bool {
			var m uint16
			var in cellSet
			for _, i := range pick {
				m |= s.cand[i]
				in.add(i)
			}
			if bits.OnesCount16(m) != n {
				return false
			}
			changed := false
			unitSet[u].andNot(in).each(func(j int) {
				if s.elim(j, m) {
					changed = true
				}
			})
			if changed {
				s.record(nakedNames[n], nakedRatings[n], func() string {
					return fmt.Sprintf("%s %s in %s of %s", nakedNames[n], digitsOf(m), cellsText(in), unitName(u))
				})
			}
			return changed
		}) {
			return true
		}
	}
	s.mem.nothing(key)
	return false
}

var hiddenRatings = [5]int{0, 0, 34, 40, 54}
var hiddenNames = [5]Technique{0, 0, HiddenPair, HiddenTriple, HiddenQuad}

// hiddenSet finds n digits with the same n places in a unit. Direct (n 2
// or 3), it counts only if removing the other digits from those places
// leaves a hidden single in the unit, and places that single only.
func (s *Solver) hiddenSet(n int, direct bool) bool {
	var digits [9]int
	var masks [9]uint16 // a digit's places in the unit, bit k for its k-th cell
	key := scanHidden2 + scan(n-2)
	if direct {
		key = scanDirectHidden2 + scan(n-2)
	}
	units := s.mem.newUnits(key)
	for u := range 27 {
		if units>>u&1 == 0 {
			continue
		}
		// As the Explainer: a hidden set in a unit of more than 2n empty
		// cells (direct: more than n).
		if empty := int(s.empty[u]); empty <= n || !direct && empty <= 2*n {
			continue
		}
		k := 0
		for d := 1; d <= 9; d++ {
			if c := s.positions(u, d).count(); c >= 1 && c <= n {
				digits[k], masks[k] = d, 0
				for j, i := range unitCells[u] {
					masks[k] |= (s.cand[i] >> (d - 1) & 1) << j
				}
				k++
			}
		}
		if k < n {
			continue
		}
		if sets(&s.pick, digits[:k], &masks, n, func(pick []int) bool {
			var in cellSet
			var m uint16
			for _, d := range pick {
				in = in.or(s.positions(u, d))
				m |= 1 << (d - 1)
			}
			if in.count() != n {
				return false
			}
			has := false
			in.each(func(i int) { has = has || s.cand[i]&^m != 0 })
			if !has {
				return false
			}
			if direct {
				for d := 1; d <= 9; d++ {
					if m>>(d-1)&1 != 0 {
						continue
					}
					p := s.positions(u, d)
					rest := p.andNot(in)
					if rest.count() == 1 && p.count() > 1 {
						i := rest.first() // placed alone, as for direct locking
						s.place(i, d)
						t, rating := DirectHiddenPair, 20
						if n == 3 {
							t, rating = DirectHiddenTriple, 25
						}
						s.record(t, rating, func() string {
							return fmt.Sprintf("%s: %s %s in %s of %s, then hidden single %d", cellName(i), t, digitsOf(m), cellsText(in), unitName(u), d)
						})
						return true
					}
				}
				return false
			}
			in.each(func(i int) { s.elim(i, ^m) })
			s.record(hiddenNames[n], hiddenRatings[n], func() string {
				return fmt.Sprintf("%s %s in %s of %s", hiddenNames[n], digitsOf(m), cellsText(in), unitName(u))
			})
			return true
		}) {
			return true
		}
	}
	s.mem.nothing(key)
	return false
}

var fishRatings = [5]int{0, 0, 32, 38, 52}
var fishNames = [5]Technique{0, 0, XWing, Swordfish, Jellyfish}

// fish finds n rows (or columns) where a digit's places lie in n columns
// (rows), and removes the digit from the rest of those columns (rows).
func (s *Solver) fish(n int) bool {
	var lines [9]int
	var masks [9]uint16 // the cover lines of a line's places
	key := scanFish2 + scan(n-2)
	digits := s.mem.newDigits(key)
	for d := 1; d <= 9; d++ {
		if digits>>(d-1)&1 == 0 || s.dcells[d-1].count() == 0 {
			continue
		}
		placed := 0
		for i := range 81 {
			if int(s.val[i]) == d {
				placed++
			}
		}
		if placed+2*n > 9 {
			continue // as the Explainer: 2n places left at least
		}
		for _, base := range [2]int{18, 9} {
			cover := 27 - base // rows cover columns and columns rows
			k := 0
			for l := base; l < base+9; l++ {
				if p := s.positions(l, d); p.count() >= 2 && p.count() <= n {
					lines[k], masks[k] = l, 0
					for x := p; !x.empty(); {
						c := x.first()
						x = x.andNot(single(c))
						masks[k] |= 1 << (cellUnit[c][cover/9] - cover)
					}
					k++
				}
			}
			if k < n {
				continue
			}
			if sets(&s.pick, lines[:k], &masks, n, func(pick []int) bool {
				var in cellSet
				for _, l := range pick {
					in = in.or(s.positions(l, d))
				}
				var covers cellSet
				nc := 0
				for c := cover; c < cover+9; c++ {
					if !in.and(unitSet[c]).empty() {
						covers = covers.or(unitSet[c])
						nc++
					}
				}
				if nc != n {
					return false
				}
				e := covers.andNot(in).and(s.dcells[d-1])
				for _, l := range pick {
					e = e.andNot(unitSet[l])
				}
				if e.empty() {
					return false
				}
				s.elimSet(e, d)
				s.record(fishNames[n], fishRatings[n], func() string {
					return fmt.Sprintf("%s on %d in %s, removed from %s", fishNames[n], d, cellsText(in), cellsText(e))
				})
				return true
			}) {
				return true
			}
		}
	}
	s.mem.nothing(key)
	return false
}
