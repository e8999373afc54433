//go:build amd64 && !purego

package sudoku

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// propDiff runs propagate in Go and in assembly on copies of the same
// states and compares the states they leave and their results.
type propDiff struct {
	t        *testing.T
	compared int    // states compared
	failed   int    // of which propagate found a contradiction
	vector   [2]int // of which compared with colVector, colVector2 too
}

// check runs propagate in Go on st and propagateAsm on copies, with the
// column loop and with each vector column pass the processor runs
// (colVector in AVX-512, colVector2 in AVX2), fails the test if they
// disagree, and returns the result. The vector passes find what the loop
// finds in another order: the same result and, on success, the same
// state (the fixed point); on a contradiction their state is not
// compared (the search drops it).
func (c *propDiff) check(st *state) bool {
	c.t.Helper()
	before, a, n := *st, *st, *st
	defer func(band, col, col2 bool) {
		useBandAsm, useColAVX512, useColAVX2 = band, col, col2
	}(useBandAsm, useColAVX512, useColAVX2)
	useBandAsm = false
	okGo := st.propagate()
	useColAVX512, useColAVX2 = false, false
	okAsm := propagateAsm(&a)
	// Without PEXT: the same computation in the same order, so the same
	// state as with it, contradictions included.
	if okN := propagateAsmNoPEXT(&n); okN != okAsm || n != a {
		c.t.Fatalf("propagate without PEXT differs from state\n%+v\nwith PEXT: ok %v\n%+v\nwithout: ok %v\n%+v", before, okAsm, a, okN, n)
	}
	for _, m := range []struct {
		name         string
		have         bool
		avx512, avx2 bool
		k            int
	}{{"colVector", haveColAVX512, true, false, 0}, {"colVector2", haveColAVX2, false, true, 1}} {
		if !m.have {
			continue
		}
		useColAVX512, useColAVX2 = m.avx512, m.avx2
		v := before
		okVec := propagateAsm(&v)
		if okVec && v.unsolved == [4]uint32{} {
			// Solved: propagate returns before the column pass, with the
			// digits of the last band updates in colDirty, which differ
			// with the order of the placements (the search reads a solved
			// state's grid alone).
			v.colDirty = st.colDirty
		}
		if okVec != okGo || okGo && v != *st {
			c.t.Fatalf("propagate with %s differs from state\n%+v\nGo: ok %v\n%+v\n%s: ok %v\n%+v", m.name, before, okGo, *st, m.name, okVec, v)
		}
		c.vector[m.k]++
	}
	c.compared++
	if !okGo {
		c.failed++
	}
	// On a contradiction the Go loop leaves in todo words that it marked
	// though they did not change, which the band updates in assembly
	// never mark: todo is then compared on the words that changed since
	// they were propagated.
	want := *st
	if !okGo {
		for i := range want.f {
			if want.f[i] == want.prev[i] {
				want.todo &^= 1 << i
				a.todo &^= 1 << i
			}
		}
	}
	if okGo != okAsm || a != want {
		c.t.Fatalf("propagate differs from state\n%+v\nGo: ok %v\n%+v\nasm: ok %v\n%+v", before, okGo, want, okAsm, a)
	}
	return okGo
}

// markTested marks the vector column passes that c compared.
func (c *propDiff) markTested(t *testing.T) {
	markAsmTested(t, "bandNoPEXT")
	if c.vector[0] > 0 {
		markAsmTested(t, "columns")
	}
	if c.vector[1] > 0 {
		markAsmTested(t, "columnsAVX2")
	}
}

// solve is Solver.search (limit 2) with propagate compared, from the state
// Solve sets up; it returns the number of solutions.
func (c *propDiff) solve(g Grid) int {
	var stack [82]state
	if stack[0].empty(); !stack[0].givens(&g) {
		return 0
	}
	n := 0
	var search func(k int)
	search = func(k int) {
		st := &stack[k]
		for {
			if !c.check(st) {
				return
			}
			if st.unsolved[0]|st.unsolved[1]|st.unsolved[2] == 0 {
				n++
				return
			}
			var tr triadView
			progress, ok := st.triads(&tr)
			if !ok {
				return
			}
			if progress {
				continue
			}
			kind, idx, d, _ := tr.choose()
			p := tr.presence(kind, idx, d)
			var ks []int
			for j, m := range permsBits {
				if p&m == m {
					ks = append(ks, j)
				}
			}
			for _, j := range ks[:len(ks)-1] {
				stack[k+1] = *st
				stack[k+1].restrict(kind, idx, d, j)
				search(k + 1)
				if n >= 2 {
					return
				}
			}
			st.restrict(kind, idx, d, ks[len(ks)-1])
		}
	}
	search(0)
	return n
}

// solverCorpora are the puzzles that the tests of the assembly solve with
// each path and compare: all of top1465 and the first of royle17 and
// serg-benchmark (n 0: all).
var solverCorpora = []struct {
	name string
	n    int
}{
	{"top1465.txt.gz", 0},
	{"royle17.txt.gz", 5000},
	{"serg-benchmark.txt.gz", 3000},
}

// TestPropagateAsmCorpora compares propagate in Go and in assembly on every
// state that solving top1465 and the first puzzles of royle17 and serg
// reaches.
func TestPropagateAsmCorpora(t *testing.T) {
	requireAsm(t, "band")
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"top1465.txt.gz", 0},
		{"royle17.txt.gz", 3000},
		{"serg-benchmark.txt.gz", 2000},
	} {
		if testing.Short() {
			tc.n /= 10
		}
		gs := corpusHead(t, tc.name, tc.n)
		c := &propDiff{t: t}
		for _, g := range gs {
			c.solve(g)
		}
		t.Logf("%s: %d puzzles, %d states compared (%d contradictions; %d with colVector, %d with colVector2 too)",
			tc.name, len(gs), c.compared, c.failed, c.vector[0], c.vector[1])
		c.markTested(t)
	}
}

// TestPropagateAsmRandom compares propagate in Go and in assembly on states
// made by random placements and random clearings (as triads and restrict
// make them, todo marking some unchanged words too, colDirty some digits
// whose words did not change), from the empty grid.
func TestPropagateAsmRandom(t *testing.T) {
	requireAsm(t, "band")
	rng := rand.New(rand.NewPCG(1, 2))
	c := &propDiff{t: t}
	runs := 20000
	if testing.Short() {
		runs = 2000
	}
	for range runs {
		var st state
		st.empty()
		for {
			if rng.IntN(3) == 0 {
				// Clear a random set of a few words and mark them
				// with some unchanged ones.
				for range 1 + rng.IntN(3) {
					i := rng.IntN(27)
					st.f[i] &^= rng.Uint32() & rng.Uint32() & bandBits
					st.todo |= 1<<i | rng.Uint32()&(1<<27-1)&rng.Uint32()
					st.colDirty |= 1<<(i/3) | rng.Uint32()&(1<<9-1)&rng.Uint32()
				}
			} else {
				// Place a random candidate of a random empty cell.
				b := rng.IntN(3)
				u := st.unsolved[b]
				if u == 0 {
					break
				}
				pos := rng.IntN(bits.OnesCount32(u))
				for ; pos > 0; pos-- {
					u &= u - 1
				}
				bit := u & -u
				var ds []int
				for d := range 9 {
					if st.f[3*d+b]&bit != 0 {
						ds = append(ds, d)
					}
				}
				if len(ds) == 0 {
					break
				}
				st.place(3*ds[rng.IntN(len(ds))]+b, bit)
			}
			if !c.check(&st) {
				break
			}
		}
	}
	if c.compared < runs || c.failed == 0 || c.failed == c.compared {
		t.Fatalf("compared %d states, %d contradictions: want at least %d, and some of each", c.compared, c.failed, runs)
	}
	t.Logf("%d states compared (%d contradictions; %d with colVector, %d with colVector2 too)", c.compared, c.failed, c.vector[0], c.vector[1])
	c.markTested(t)
}

// TestPropagateAsmSolver solves corpora with propagate in Go and in
// assembly and compares solutions, guesses and nodes.
func TestPropagateAsmSolver(t *testing.T) {
	requireAsm(t, "band")
	defer func(band, noPEXT, col, col2 bool) {
		useBandAsm, useBandNoPEXT, useColAVX512, useColAVX2 = band, noPEXT, col, col2
	}(useBandAsm, useBandNoPEXT, useColAVX512, useColAVX2)
	// The Go, the assembly with the column loop, without PEXT, and with
	// each vector column pass the processor runs.
	type mode struct {
		name                         string
		band, noPEXT, col512, col256 bool
	}
	modes := []mode{{"Go", false, false, false, false}, {"asm", true, false, false, false},
		{"asm without PEXT", true, true, false, false}}
	markAsmTested(t, "bandNoPEXT")
	if haveColAVX512 {
		modes = append(modes, mode{"asm with colVector", true, false, true, false})
		markAsmTested(t, "columns")
	}
	if haveColAVX2 {
		modes = append(modes, mode{"asm with colVector2", true, false, false, true},
			mode{"asm without PEXT, with colVector2", true, true, false, true})
		markAsmTested(t, "columnsAVX2")
	}
	for _, tc := range solverCorpora {
		if testing.Short() {
			tc.n /= 10
		}
		gs := corpusHead(t, tc.name, tc.n)
		s := NewSolver()
		guesses := 0
		for _, g := range gs {
			var want [5]int // solutions, guesses, nodes
			var wantSol [2]Grid
			for k, m := range modes {
				useBandAsm, useBandNoPEXT, useColAVX512, useColAVX2 = m.band, m.noPEXT, m.col512, m.col256
				var got [5]int
				var sol [2]Grid
				got[0], got[1] = s.Solve(&g, 2)
				got[2] = s.Nodes()
				for j := range min(got[0], 2) {
					sol[j] = s.Solution(j)
				}
				if k == 0 {
					want, wantSol = got, sol
					guesses += got[1]
				} else if got != want || sol != wantSol {
					t.Fatalf("%s: puzzle %s: %s: %d solutions %v, %d guesses, %d nodes; Go: %d solutions %v, %d guesses, %d nodes",
						tc.name, g, m.name, got[0], sol, got[1], got[2], want[0], wantSol, want[1], want[2])
				}
			}
		}
		t.Logf("%s: %d puzzles solved alike by %d paths, %.4f guesses a puzzle", tc.name, len(gs), len(modes), float64(guesses)/float64(len(gs)))
	}
}

// TestPlaceGivensAsm compares the givens loop in Go and in assembly, with
// and without PEXT, on the puzzles of the corpora, on random grids (with
// values above 9, and givens in conflict) and on the corpora's puzzles
// with one conflict added of each kind, from the empty grid as Solve sets
// it up: the results always, and the states when both succeed (Solve
// discards the state of a failure, which placeGivens computes in bulk, not
// as the loop leaves it).
func TestPlaceGivensAsm(t *testing.T) {
	requireAsm(t, "band")
	requireAsm(t, "bandNoPEXT")
	compared, failed := 0, 0
	check := func(g *Grid, why string) {
		t.Helper()
		var a, b state
		a.empty()
		b = a
		c := a
		okGo := a.givens(g)
		okAsm := placeGivens(&b, g)
		if okGo != okAsm || okGo && a != b {
			t.Fatalf("givens %v (%s): Go: ok %v\n%+v\nasm: ok %v\n%+v", *g, why, okGo, a, okAsm, b)
		}
		okNoPEXT := placeGivensNoPEXT(&c, g)
		if okGo != okNoPEXT || okGo && a != c {
			t.Fatalf("givens %v (%s): Go: ok %v\n%+v\nasm without PEXT: ok %v\n%+v", *g, why, okGo, a, okNoPEXT, c)
		}
		compared++
		if !okGo {
			failed++
		}
	}
	var puzzles []Grid
	for _, name := range []string{"top1465.txt.gz", "royle17.txt.gz", "serg-benchmark.txt.gz"} {
		gs := corpus(t, name)
		for i := range gs {
			check(&gs[i], name)
		}
		puzzles = append(puzzles, gs...)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		var g Grid
		for range rng.IntN(30) {
			v := uint8(1 + rng.IntN(9))
			if rng.IntN(50) == 0 {
				v = uint8(rng.IntN(256))
			}
			g[rng.IntN(81)] = v
		}
		check(&g, "random")
	}
	// One conflict added to a valid puzzle: a given copied to an empty
	// cell of its row (same box or not), its column (same band or not)
	// or its box (another row), or a value above 9.
	peer := func(i, j int, kind string) bool {
		ri, ci, rj, cj := i/9, i%9, j/9, j%9
		sameBox := ri/3 == rj/3 && ci/3 == cj/3
		switch kind {
		case "row, same box":
			return ri == rj && sameBox
		case "row, other box":
			return ri == rj && !sameBox
		case "column, same band":
			return ci == cj && ri/3 == rj/3
		case "column, other band":
			return ci == cj && ri/3 != rj/3
		case "box, other row and column":
			return sameBox && ri != rj && ci != cj
		}
		panic(kind)
	}
	kinds := []string{"row, same box", "row, other box", "column, same band", "column, other band", "box, other row and column"}
	for n := range 20000 {
		g := puzzles[rng.IntN(len(puzzles))]
		if n%10 == 0 {
			// A value above 9 in an empty cell (a puzzle has one).
			j := rng.IntN(81)
			for g[j] != 0 {
				j = rng.IntN(81)
			}
			g[j] = uint8(10 + rng.IntN(246))
			before := failed
			check(&g, "a value above 9")
			if failed == before {
				t.Fatalf("givens %v: a value above 9 (cell %d): both succeed, want failure", g, j)
			}
			continue
		}
		kind := kinds[n%len(kinds)]
		var pairs [][2]int
		for i := range 81 {
			for j := range 81 {
				if g[i] != 0 && g[j] == 0 && peer(i, j, kind) {
					pairs = append(pairs, [2]int{i, j})
				}
			}
		}
		if len(pairs) == 0 {
			continue
		}
		p := pairs[rng.IntN(len(pairs))]
		g[p[1]] = g[p[0]]
		before := failed
		check(&g, kind)
		if failed == before {
			t.Fatalf("givens %v: %s (cells %d and %d): both succeed, want failure", g, kind, p[0], p[1])
		}
	}
	if failed == 0 || failed == compared {
		t.Fatalf("compared %d grids, %d failed: want some of each", compared, failed)
	}
	t.Logf("%d grids compared (%d with a conflict or a value above 9)", compared, failed)
}

// TestSlowPEXT: PEXT is known to be microcoded on AMD and Hygon
// processors before Zen 3 and fast elsewhere (CPUID signatures of real
// processors), and the measurement that chooses the band assembly
// (slowPEXT) agrees with that on this processor.
func TestSlowPEXT(t *testing.T) {
	const (
		intelB, intelC, intelD = 0x756e6547, 0x6c65746e, 0x49656e69 // "GenuineIntel"
		amdB, amdC, amdD       = 0x68747541, 0x444d4163, 0x69746e65 // "AuthenticAMD"
		hygonB, hygonC, hygonD = 0x6f677948, 0x656e6975, 0x6e65476e // "HygonGenuine"
	)
	for _, c := range []struct {
		name       string
		b, c, d, a uint32
		want       bool
	}{
		{"Intel Ice Lake", intelB, intelC, intelD, 0x000606A6, false},
		{"AMD Zen 2 (family 0x17)", amdB, amdC, amdD, 0x00830F10, true},
		{"AMD Zen 1 (family 0x17)", amdB, amdC, amdD, 0x00800F11, true},
		{"AMD Excavator (family 0x15)", amdB, amdC, amdD, 0x00660F01, true},
		{"Hygon Dhyana (family 0x18)", hygonB, hygonC, hygonD, 0x00900F01, true},
		{"AMD Zen 3 (family 0x19)", amdB, amdC, amdD, 0x00A20F10, false},
		{"AMD Zen 4 (family 0x19)", amdB, amdC, amdD, 0x00A60F12, false},
		{"AMD Zen 5 (family 0x1A)", amdB, amdC, amdD, 0x00B40F40, false},
	} {
		if got := slowPEXTOn(c.b, c.c, c.d, c.a); got != c.want {
			t.Errorf("%s: slowPEXTOn = %v, want %v", c.name, got, c.want)
		}
	}
	_, b, c, d := cpuid(0, 0)
	vendor := string([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24), byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)})
	if haveBandAsm && slowPEXT() != slowPEXTByFamily() {
		t.Errorf("this machine (%s): PEXT measured at %.2f times an IMUL (slow: %v), but the family says slow: %v",
			vendor, pextRatio, slowPEXT(), slowPEXTByFamily())
	}
	t.Logf("this machine: %s, PEXT measured at %.2f times an IMUL, slow %v, band assembly runs %v, chosen %v",
		vendor, pextRatio, slowPEXT(), haveBandAsm, useBandAsm)
}

// BenchmarkPlaceGivens times the givens of Solve alone, in assembly (with
// and without PEXT) and in Go, from the empty grid, on serg-benchmark's
// puzzles (about 25 givens) and royle17's (17).
func BenchmarkPlaceGivens(b *testing.B) {
	for _, name := range []string{"serg-benchmark.txt.gz", "royle17.txt.gz"} {
		gs := corpus(b, name)
		for _, run := range []struct{ label, path string }{{"asm", "band"}, {"asmNoPEXT", "bandNoPEXT"}, {"go", ""}} {
			b.Run(name[:len(name)-len(".txt.gz")]+"/"+run.label, func(b *testing.B) {
				if run.path != "" {
					requireAsm(b, run.path)
				}
				var st state
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					for i := range gs {
						st.empty()
						switch run.label {
						case "asm":
							placeGivens(&st, &gs[i])
						case "asmNoPEXT":
							placeGivensNoPEXT(&st, &gs[i])
						default:
							st.givens(&gs[i])
						}
					}
					n += len(gs)
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "puzzles/s")
			})
		}
	}
}
