package rating

import (
	"fmt"
	"math/bits"
	"slices"
	"testing"
)

// A position is given by its candidates. Most are built from an empty
// grid with all nine digits everywhere and a few edits: with every other
// digit everywhere, no pattern but the one built can hold. Cells are
// written rc (15 is r1c5) and candidates rcd (159 is 9 at r1c5).

// pos is a position: candidates, and the digits placed (0 if none).
type pos struct {
	cand [81]uint16
	val  [81]uint8
}

func fullPos() pos {
	var p pos
	for i := range p.cand {
		p.cand[i] = 0x1ff
	}
	return p
}

// edit changes a position.
type edit func(p *pos)

func rc(x int) int { return 9*(x/10-1) + x%10 - 1 }

func digitMask(ds []int) uint16 {
	var m uint16
	for _, d := range ds {
		m |= 1 << (d - 1)
	}
	return m
}

// keep sets cell x's candidates to the digits ds.
func keep(x int, ds ...int) edit { return func(p *pos) { p.cand[rc(x)] = digitMask(ds) } }

// full gives cell x all nine digits again.
func full(x int) edit { return func(p *pos) { p.cand[rc(x)] = 0x1ff } }

// add adds the digits ds to cell x.
func add(x int, ds ...int) edit { return func(p *pos) { p.cand[rc(x)] |= digitMask(ds) } }

// only leaves digit d in unit u at the cells xs only.
func only(u, d int, xs ...int) edit {
	return func(p *pos) {
		for _, i := range unitCells[u] {
			p.cand[i] &^= 1 << (d - 1)
		}
		for _, x := range xs {
			p.cand[rc(x)] |= 1 << (d - 1)
		}
	}
}

func row(r int) int { return 8 + r }
func col(c int) int { return 17 + c }
func box(b int) int { return b - 1 }

// load sets the solver's grid to the position.
func (s *Solver) loadPos(p pos) {
	s.res, s.wrong, s.truth, s.ceiling, s.explain = Result{}, "", nil, noCeiling, false
	s.left = 0
	for d := range s.dcells {
		s.dcells[d] = cellSet{}
	}
	for i, c := range p.cand {
		s.cand[i], s.val[i] = c, p.val[i]
		if p.val[i] == 0 {
			s.left++
		}
		for ; c != 0; c &= c - 1 {
			s.dcells[bits.TrailingZeros16(c)].add(i)
		}
	}
	s.counted()
}

// stateBefore rates puzzle line of se-rated-dev and returns the position
// just before its first step by technique t.
func stateBefore(t *testing.T, line int, tech Technique) pos {
	t.Helper()
	for _, rp := range readRated(t) {
		if rp.line != line {
			continue
		}
		s := NewSolver()
		s.res, s.ceiling = Result{}, noCeiling
		if !s.load(&rp.puzzle) {
			t.Fatalf("line %d: givens conflict", line)
		}
		for s.left > 0 {
			p := pos{s.cand, s.val}
			if !s.stepOnce() {
				break
			}
			if s.res.Used>>tech&1 != 0 {
				return p
			}
		}
		t.Fatalf("line %d: no step by %v", line, tech)
	}
	t.Fatalf("line %d not in se-rated-dev", line)
	return pos{}
}

// nearMiss is a position where a technique applies and, a candidate or a
// cell away, one where its pattern almost holds and it must not.
type nearMiss struct {
	name string
	find func(s *Solver) bool
	// tech and rating are those of the step found.
	tech   Technique
	rating int
	// The position: from (nil: the empty grid) with the edits of pattern.
	from    func(t *testing.T) pos
	pattern []edit
	// miss, applied on top of the pattern, breaks it.
	miss []edit
	// gone and placed are candidates (rcd) the step removes and places;
	// kept are some it must leave.
	gone, placed, kept []int
	// missElsewhere: on the near miss the technique may find another
	// step, but not remove gone.
	missElsewhere bool
}

// alsRow is the almost locked set of k cells of row 1 with k+1 digits
// (r1c1 12, r1c2 13, then cells pairing each digit with the next, the
// last of three digits) and the bivalue cell r2c3 with 1 and the set's
// last digit z: 1 is in the set only where r2c3 sees it, so z is in the
// set or in r2c3 and goes from r1c3 and r2c7-9.
func alsRow(k int) []edit {
	e := []edit{keep(11, 1, 2), keep(12, 1, 3), keep(23, 1, k+1)}
	cols := [][]int{3: {7}, 4: {7, 8}, 5: {6, 7, 8}, 6: {5, 6, 7, 8}}[k]
	for j, c := range cols {
		ds := []int{j + 2, j + 4}
		if j == len(cols)-1 {
			ds = []int{j + 2, j + 3, j + 4}
		}
		e = append(e, keep(10+c, ds...))
	}
	return e
}

var nearMisses = []nearMiss{
	{
		name: "hidden single: digit 1 in two places of box 1", find: (*Solver).hiddenSingle, tech: HiddenSingle, rating: 12,
		pattern: []edit{only(box(1), 1, 11)}, miss: []edit{only(box(1), 1, 11, 22)},
		gone: []int{151}, placed: []int{111},
	},
	{
		name: "naked single: two candidates left", find: (*Solver).nakedSingle, tech: NakedSingle, rating: 23,
		pattern: []edit{keep(11, 1)}, miss: []edit{keep(11, 1, 2)},
		gone: []int{911}, placed: []int{111},
	},
	{
		// A direct step places its single and leaves the eliminations
		// that reveal it (r1c9 keeps 1), as the Explainer does.
		name: "direct pointing: the other box keeps two places off the row", find: (*Solver).directLocking, tech: DirectPointing, rating: 17,
		pattern: []edit{only(box(1), 1, 11, 12), only(box(2), 1, 14, 25)},
		miss:    []edit{only(box(2), 1, 14, 25, 36)},
		gone:    []int{141}, placed: []int{251}, kept: []int{191},
	},
	{
		// Direct claiming always comes with an easier step: here 1 is
		// placed in row 3 (box 3), and r2c5 is also box 2's hidden
		// single; the technique is called alone.
		name: "direct claiming: the other row keeps two places off the box", find: (*Solver).directLocking, tech: DirectClaiming, rating: 19,
		pattern: []edit{only(row(1), 1, 11, 12), only(row(2), 1, 21, 25), only(row(3), 1)},
		miss:    []edit{only(row(2), 1, 21, 25, 29)},
		gone:    []int{211}, placed: []int{251},
	},
	{
		name: "pointing: digit 1 of box 1 in two rows", find: (*Solver).locking, tech: Pointing, rating: 26,
		pattern: []edit{only(box(1), 1, 11, 12)}, miss: []edit{only(box(1), 1, 11, 12, 23)},
		gone: []int{191, 141}, kept: []int{111, 121},
	},
	{
		name: "claiming: digit 1 of row 1 in two boxes", find: (*Solver).locking, tech: Claiming, rating: 28,
		// Box 1 keeps 1 in two rows and two columns: no pointing.
		pattern: []edit{only(row(1), 1, 11, 12), only(row(2), 1, 21), only(row(3), 1, 32)},
		miss:    []edit{only(row(1), 1, 11, 12, 19)},
		gone:    []int{211, 321}, kept: []int{111, 121},
	},
	{
		name: "direct hidden pair: the third digit has another place", find: func(s *Solver) bool { return s.hiddenSet(2, true) },
		tech: DirectHiddenPair, rating: 20,
		pattern: []edit{only(row(1), 1, 11, 12), only(row(1), 2, 11, 12), only(row(1), 3, 11, 12, 13)},
		miss:    []edit{only(row(1), 3, 11, 12, 13, 14)},
		gone:    []int{113}, placed: []int{133}, kept: []int{111, 122, 129},
	},
	{
		name: "direct hidden triple: the fourth digit has another place", find: func(s *Solver) bool { return s.hiddenSet(3, true) },
		tech: DirectHiddenTriple, rating: 25,
		pattern: []edit{only(row(1), 1, 11, 12, 13), only(row(1), 2, 11, 12, 13), only(row(1), 3, 11, 12, 13),
			only(row(1), 4, 11, 12, 13, 14)},
		miss: []edit{only(row(1), 4, 11, 12, 13, 14, 15)},
		gone: []int{114}, placed: []int{144}, kept: []int{139},
	},
	{
		name: "naked pair: the second cell has another digit", find: func(s *Solver) bool { return s.nakedSet(2) },
		tech: NakedPair, rating: 30,
		pattern: []edit{keep(11, 1, 2), keep(15, 1, 2)}, miss: []edit{keep(15, 1, 3)},
		gone: []int{191, 192, 122}, kept: []int{193},
	},
	{
		name: "naked triple: a fourth digit", find: func(s *Solver) bool { return s.nakedSet(3) },
		tech: NakedTriple, rating: 36,
		pattern: []edit{keep(11, 1, 2), keep(15, 2, 3), keep(19, 1, 3)}, miss: []edit{keep(19, 1, 4)},
		gone: []int{121, 142, 183}, kept: []int{184, 211},
	},
	{
		name: "naked quad: a fifth digit", find: func(s *Solver) bool { return s.nakedSet(4) },
		tech: NakedQuad, rating: 50,
		pattern: []edit{keep(11, 1, 2), keep(14, 2, 3), keep(17, 3, 4), keep(19, 1, 4)}, miss: []edit{keep(19, 1, 5)},
		gone: []int{121, 152, 163, 184}, kept: []int{125},
	},
	{
		name: "hidden pair: one digit has a third place", find: func(s *Solver) bool { return s.hiddenSet(2, false) },
		tech: HiddenPair, rating: 34,
		pattern: []edit{only(row(1), 1, 11, 15), only(row(1), 2, 11, 15)}, miss: []edit{only(row(1), 2, 11, 15, 19)},
		gone: []int{159, 113}, kept: []int{111, 152},
	},
	{
		name: "hidden triple: one digit has a fourth place", find: func(s *Solver) bool { return s.hiddenSet(3, false) },
		tech: HiddenTriple, rating: 40,
		pattern: []edit{only(row(1), 1, 11, 15, 19), only(row(1), 2, 11, 15), only(row(1), 3, 15, 19)},
		miss:    []edit{only(row(1), 3, 12, 15, 19)},
		gone:    []int{119, 154, 195}, kept: []int{111, 153},
	},
	{
		name: "hidden quad: one digit has a fifth place", find: func(s *Solver) bool { return s.hiddenSet(4, false) },
		tech: HiddenQuad, rating: 54,
		pattern: []edit{only(row(1), 1, 11, 14), only(row(1), 2, 14, 17), only(row(1), 3, 17, 19), only(row(1), 4, 11, 19)},
		miss:    []edit{only(row(1), 4, 11, 13, 19)},
		gone:    []int{119, 145, 176, 199}, kept: []int{111, 141},
	},
	{
		name: "x-wing: a third candidate in a row", find: func(s *Solver) bool { return s.fish(2) }, tech: XWing, rating: 32,
		pattern: []edit{only(row(1), 1, 11, 15), only(row(5), 1, 51, 55)}, miss: []edit{only(row(5), 1, 51, 55, 59)},
		gone: []int{951, 311}, kept: []int{111, 551},
	},
	{
		name: "swordfish: four columns", find: func(s *Solver) bool { return s.fish(3) }, tech: Swordfish, rating: 38,
		pattern: []edit{only(row(1), 1, 11, 15), only(row(5), 1, 55, 59), only(row(9), 1, 91, 99)},
		miss:    []edit{only(row(9), 1, 91, 98)},
		gone:    []int{391, 251, 451}, kept: []int{111},
	},
	{
		name: "jellyfish: five columns", find: func(s *Solver) bool { return s.fish(4) }, tech: Jellyfish, rating: 52,
		pattern: []edit{only(row(1), 1, 11, 13), only(row(3), 1, 33, 35), only(row(5), 1, 55, 57), only(row(7), 1, 77, 71)},
		miss:    []edit{only(row(7), 1, 77, 79)},
		gone:    []int{911, 231, 451, 871}, kept: []int{111, 771},
	},
	{
		name: "xy-wing: the pincers end on different digits", find: (*Solver).xyWing, tech: XYWing, rating: 42,
		pattern: []edit{keep(11, 1, 2), keep(15, 1, 3), keep(51, 2, 3)}, miss: []edit{keep(51, 2, 4)},
		gone: []int{553}, kept: []int{552},
	},
	{
		name: "xy-wing: the pincers' only common peer lacks the digit", find: (*Solver).xyWing, tech: XYWing, rating: 42,
		pattern: []edit{keep(11, 1, 2), keep(15, 1, 3), keep(51, 2, 3)}, miss: []edit{keep(55, 1, 2, 4, 5, 6, 7, 8, 9)},
		gone: []int{553},
	},
	{
		name: "xyz-wing: the pincers share no cell with the pivot", find: (*Solver).xyzWing, tech: XYZWing, rating: 44,
		pattern: []edit{keep(11, 1, 2, 3), keep(15, 1, 3), keep(22, 2, 3)}, miss: []edit{full(22), keep(51, 2, 3)},
		gone: []int{123, 133}, kept: []int{143},
	},
	{
		name: "skyscraper: a third place in the second column", find: func(s *Solver) bool { return s.strongLinks(2) },
		tech: TurbotFish, rating: 40,
		pattern: []edit{only(col(1), 1, 11, 91), only(col(5), 1, 25, 95)}, miss: []edit{only(col(5), 1, 25, 55, 95)},
		gone: []int{141, 161, 221, 231}, kept: []int{111, 251},
	},
	{
		// Three columns chained by rows 4 and 8: one of r1c1 and r2c9
		// holds 1.
		name: "three strong links: a third place in the last column", find: func(s *Solver) bool { return s.strongLinks(3) },
		tech: ThreeStrongLinks, rating: 54,
		pattern: []edit{only(col(1), 1, 11, 41), only(col(5), 1, 45, 85), only(col(9), 1, 89, 29)},
		miss:    []edit{only(col(9), 1, 29, 59, 89)},
		gone:    []int{171, 181, 221, 231}, kept: []int{111, 291},
	},
	{
		name: "four strong links: a third place in the last column", find: func(s *Solver) bool { return s.strongLinks(4) },
		tech: FourStrongLinks, rating: 58,
		pattern: []edit{only(col(1), 1, 11, 41), only(col(5), 1, 45, 85), only(col(9), 1, 89, 69), only(col(7), 1, 67, 27)},
		miss:    []edit{only(col(7), 1, 27, 67, 97)},
		gone:    []int{181, 221, 231}, kept: []int{111, 271},
	},
	{
		name: "unique rectangle: four boxes, no deadly pattern", find: (*Solver).uniqueLoops, tech: UniqueRectangle, rating: 45,
		pattern: []edit{keep(11, 1, 2), keep(12, 1, 2), keep(51, 1, 2), keep(52, 1, 2, 3)},
		miss:    []edit{full(12), full(52), keep(15, 1, 2), keep(55, 1, 2, 3)},
		gone:    []int{521, 522}, kept: []int{523},
	},
	{
		name: "bug: a second cell with three candidates", find: (*Solver).bug, tech: BUG, rating: 56,
		from: func(t *testing.T) pos { return stateBefore(t, techniqueLines[BUG], BUG) },
		gone: []int{342, 345}, placed: []int{341},
		miss: []edit{func(p *pos) {
			for i, c := range p.cand {
				if bits.OnesCount16(c) == 2 {
					p.cand[i] |= 1 << bits.TrailingZeros16(^c)
					return
				}
			}
		}},
	},
	{
		// Line 2205: r4c2 (469) and r4c8 (579), whose extra digits are 4
		// and 7, share 9, which has no other place in row 4.
		name: "bug type 4: 9 has a third place in row 4", find: (*Solver).bug, tech: BUG, rating: 57,
		from: func(t *testing.T) pos { return stateBefore(t, 2205, BUG) },
		miss: []edit{add(43, 9)},
		gone: []int{426, 485}, kept: []int{424, 429, 487, 489},
	},
	{
		name: "wxyz-wing: r2c3's second digit is not in the set", find: func(s *Solver) bool { return s.alsWing(3) },
		tech: WXYZWing, rating: 56, pattern: alsRow(3), miss: []edit{keep(23, 1, 5)},
		gone: []int{134, 274, 294}, kept: []int{174},
	},
	{
		name: "vwxyz-wing: r2c3's second digit is not in the set", find: func(s *Solver) bool { return s.alsWing(4) },
		tech: VWXYZWing, rating: 64, pattern: alsRow(4), miss: []edit{keep(23, 1, 6)},
		gone: []int{135, 275, 295}, kept: []int{185},
	},
	{
		name: "uvwxyz-wing: r2c3's second digit is not in the set", find: func(s *Solver) bool { return s.alsWing(5) },
		tech: UVWXYZWing, rating: 66, pattern: alsRow(5), miss: []edit{keep(23, 1, 7)},
		gone: []int{136, 276, 296}, kept: []int{186},
	},
	{
		name: "tuvwxyz-wing: r2c3's second digit is not in the set", find: func(s *Solver) bool { return s.alsWing(6) },
		tech: TUVWXYZWing, rating: 75, pattern: alsRow(6), miss: []edit{keep(23, 1, 8)},
		gone: []int{137, 277, 297}, kept: []int{187},
	},
	{
		// r1c1=1 and r2c5=2 would empty r1c5, r1c1=1 and r2c5=3 r2c2.
		name: "aligned pair exclusion: an excluder with another digit", find: (*Solver).alignedPair,
		tech: AlignedPairExclusion, rating: 62,
		pattern: []edit{keep(11, 1, 4), keep(25, 2, 3), keep(15, 1, 2), keep(22, 1, 3)},
		miss:    []edit{keep(22, 1, 5)},
		gone:    []int{111}, kept: []int{114, 252, 253},
	},
	{
		// With r1c1=1, r1c2 and r2c4 (2 or 5, 3 or 6) would empty one of
		// r1c4, r1c5 (row 1), r2c1, r2c2 (box 1).
		name: "aligned triple exclusion: an excluder with another digit", find: (*Solver).alignedTriple,
		tech: AlignedTripleExclusion, rating: 75,
		pattern: []edit{keep(11, 1, 4), keep(12, 2, 5), keep(24, 3, 6),
			keep(15, 1, 2, 3), keep(16, 1, 2, 6), keep(21, 1, 3, 5), keep(22, 1, 5, 6)},
		miss: []edit{keep(22, 1, 5, 7)},
		gone: []int{111}, kept: []int{114, 122, 125, 243, 246},
	},
	{
		// The three strong links above: r1c1 or r2c9 holds 1.
		name: "x-chain: a third place in the last column", find: (*Solver).staticChains, tech: XChain, rating: 67,
		pattern: []edit{only(col(1), 1, 11, 41), only(col(5), 1, 45, 85), only(col(9), 1, 89, 29)},
		miss:    []edit{only(col(9), 1, 29, 59, 89)},
		gone:    []int{171}, kept: []int{111, 291},
	},
	{
		name: "y-chain: the loop's last cell ends on another digit", find: (*Solver).staticChains, tech: YChain, rating: 66,
		pattern: []edit{keep(11, 1, 2), keep(15, 2, 3), keep(55, 3, 4), keep(51, 4, 1)},
		miss:    []edit{keep(51, 4, 5)},
		gone:    []int{122, 211, 253, 524, 911}, kept: []int{111, 112, 193},
	},
	{
		// A loop of bivalue cells and strong links (r1c1=1 - r5c5=1 -
		// r5c1=3 - r1c1=2) but for the weak link of 1 in row 1: 1 goes
		// from r1c1. Broken at one strong link it is still a chain, that
		// removes 1 from r1c5 instead.
		name: "alternating inference chain: a third place in column 1", find: (*Solver).staticChains, tech: AIC, rating: 71,
		pattern: []edit{keep(11, 1, 2), only(col(1), 2, 11, 51), keep(51, 2, 3), only(row(5), 3, 51, 55), keep(55, 3, 1), only(col(5), 1, 55, 15)},
		miss:    []edit{only(col(1), 2, 11, 51, 91)},
		gone:    []int{111}, kept: []int{112, 151}, missElsewhere: true,
	},
	{
		name: "nishio: row 2 has 1 outside box 1", find: func(s *Solver) bool { return s.forcing(Nishio, 75, false, true, true, 0) },
		tech: Nishio, rating: 75,
		pattern: []edit{only(row(2), 1, 22, 23)}, miss: []edit{only(row(2), 1, 22, 25)},
		gone: []int{111}, kept: []int{121, 131},
	},
	{
		// r1c1 1, 2 or 3 each put 4 at r1c5, r5c1 or r2c5.
		name: "cell forcing chain: one branch ends elsewhere", find: func(s *Solver) bool { return s.forcing(CellForcing, 80, true, false, false, 0) },
		tech: CellForcing, rating: 83,
		pattern: []edit{keep(11, 1, 2, 3), keep(15, 1, 4), keep(51, 2, 4), keep(22, 3, 5), keep(25, 5, 4)},
		miss:    []edit{keep(25, 5, 6)},
		gone:    []int{554}, kept: []int{111, 154},
	},
	{
		// 1 at r1c1, or at r1c9, r7c5 and r5c1: not at r2c1. On the near
		// miss the region chains remove other candidates.
		name: "region forcing chain: row 5 has a third place", find: func(s *Solver) bool { return s.forcing(CellForcing, 80, true, false, false, 0) },
		tech: RegionForcing, rating: 81,
		pattern: []edit{only(row(1), 1, 11, 19), only(row(5), 1, 51, 55), only(row(7), 1, 79, 75)},
		miss:    []edit{only(row(5), 1, 51, 55, 58)},
		gone:    []int{211}, kept: []int{111, 191}, missElsewhere: true,
	},
	{
		name: "dynamic forcing chain: row 2 has 1 outside box 1", find: func(s *Solver) bool { return s.forcing(DynamicForcing, 85, true, true, false, 0) },
		tech: DynamicForcing, rating: 85,
		pattern: []edit{only(row(2), 1, 22, 23)}, miss: []edit{only(row(2), 1, 22, 25)},
		gone: []int{111}, kept: []int{121, 131},
	},
}

// TestNearMisses: each technique, called alone, makes its step on a
// position built for it, rated as expected, removing and placing what it
// should, and finds nothing on the same position with the pattern broken
// by one candidate or one cell.
func TestNearMisses(t *testing.T) {
	s := NewSolver()
	for _, c := range nearMisses {
		build := func(extra []edit) pos {
			p := fullPos()
			if c.from != nil {
				p = c.from(t)
			}
			for _, e := range c.pattern {
				e(&p)
			}
			for _, e := range extra {
				e(&p)
			}
			return p
		}
		s.loadPos(build(nil))
		has := func(x int) bool { i := rc(x / 10); return s.cand[i]>>(x%10-1)&1 != 0 }
		for _, x := range slices.Concat(c.gone, c.kept, c.placed) {
			if !has(x) {
				t.Errorf("%s: %d not a candidate of r%dc%d before the step, want one", c.name, x%10, x/100, x/10%10)
			}
		}
		if !c.find(s) {
			t.Errorf("%s: no step where the pattern holds, want one", c.name)
			continue
		}
		if s.res.Steps != 1 || s.res.Hardest != c.tech || s.res.Rating != c.rating {
			t.Errorf("%s: got %d steps, %v rated %d; want one step, %v rated %d", c.name, s.res.Steps, s.res.Hardest, s.res.Rating, c.tech, c.rating)
		}
		for _, x := range c.gone {
			if has(x) {
				t.Errorf("%s: %d still a candidate of r%dc%d, want it removed", c.name, x%10, x/100, x/10%10)
			}
		}
		for _, x := range c.kept {
			if !has(x) && int(s.val[rc(x/10)]) != x%10 {
				t.Errorf("%s: %d no longer a candidate of r%dc%d, want it kept", c.name, x%10, x/100, x/10%10)
			}
		}
		for _, x := range c.placed {
			if i := rc(x / 10); int(s.val[i]) != x%10 {
				t.Errorf("%s: r%dc%d holds %d, want %d placed", c.name, x/100, x/10%10, s.val[i], x%10)
			}
		}
		s.loadPos(build(c.miss))
		if !c.find(s) {
			continue
		}
		if !c.missElsewhere {
			t.Errorf("%s: near miss: found a step (%v rated %d), want none", c.name, s.res.Hardest, s.res.Rating)
			continue
		}
		for _, x := range c.gone {
			if !has(x) {
				t.Errorf("%s: near miss: %d removed from r%dc%d, want it kept", c.name, x%10, x/100, x/10%10)
			}
		}
	}
}

// TestNearMissPositions checks the cases themselves: every technique
// the solver has is there, and each name once. The chains nested in
// chains (dynamic forcing chains (+) and the nested levels) are not: a
// position where they apply takes a hard puzzle's whole state, so they
// are checked step by step against the Explainer's own steps on AI
// Escargot and others (TestExplainerSteps, nested_test.go) and rated
// against its ratings (TestNestedRatings).
func TestNearMissPositions(t *testing.T) {
	var names []string
	covered := map[Technique]bool{DynamicForcingPlus: true, NestedForcing: true, NestedMultiple: true, NestedDynamic: true}
	for _, c := range nearMisses {
		names = append(names, c.name)
		covered[c.tech] = true
	}
	slices.Sort(names)
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("case %q twice", names[i])
		}
	}
	var missing []string
	for tech := range numTechniques {
		if !covered[tech] {
			missing = append(missing, fmt.Sprint(tech))
		}
	}
	if len(missing) > 0 {
		t.Errorf("no near-miss case for %v", missing)
	}
}
