package sudoku

import (
	"math"
	"math/rand/v2"
)

// Relabellings is how many relabellings GuessDifficulty averages over, as
// tdoku's generator does by default.
const Relabellings = 10

// GuessDifficulty returns the guess-based difficulty of g: the mean of
// ln(1+guesses) that Solve (limit 1, as tdoku's generator solves) makes
// over Relabellings random relabellings of g, each a random permutation of
// the digits, of the bands and of the rows within each band, of the stacks
// and of the columns within each stack (tdoku's Util::PermuteSudoku and
// Generator::MeanLogGuesses). A relabelling is the same puzzle, but the
// search meets its cells and digits in another order, so one count says
// little and the mean of logarithms measures how much search the puzzle
// needs: 0 when propagation alone solves it, ln 2 = 0.69 for one guess
// every time. exp of it, less 1, is the geometric mean of the guesses.
//
// The relabellings come from a random stream seeded by g's cells: the
// figure depends on the puzzle alone, not on which worker computes it or
// when. It allocates nothing.
//
// A puzzle the first relabelling solves without a guess is solved
// without one by all: what propagation deduces does not depend on the
// order it meets cells and digits in (its rules only remove candidates,
// and one that applies still applies after other removals), so the
// others are not solved.
func (s *Solver) GuessDifficulty(g *Grid) float64 { return s.guessDifficulty(g, true) }

// guessDifficulty is GuessDifficulty; every relabelling is solved unless
// shortcut.
func (s *Solver) guessDifficulty(g *Grid, shortcut bool) float64 {
	var h uint64 = 14695981039346656037 // FNV-1a of the cells
	for _, v := range g {
		h = (h ^ uint64(v)) * 1099511628211
	}
	rng := rand.NewPCG(h, 0x5ee1)
	sum := 0.0
	for k := range Relabellings {
		var digit [10]uint8
		var rows, cols [9]int
		perm := shuffle(rng, 9)
		for d := 1; d <= 9; d++ {
			digit[d] = uint8(perm[d-1] + 1)
		}
		blockShuffle(rng, &rows)
		blockShuffle(rng, &cols)
		var r Grid
		for i, v := range g {
			r[rows[i/9]*9+cols[i%9]] = digit[v%10]
		}
		_, guesses := s.Solve(&r, 1)
		if k == 0 && guesses == 0 && shortcut {
			return 0
		}
		sum += math.Log(float64(guesses) + 1)
	}
	return sum / Relabellings
}

// shuffle returns a random permutation of 0..n-1 (n at most 9).
func shuffle(rng *rand.PCG, n int) [9]int {
	var p [9]int
	for i := range n {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(rng.Uint64() % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// blockShuffle sets p to a random permutation of the nine lines that keeps
// them in their bands (or stacks): the bands in a random order, and the
// lines of each band in a random order.
func blockShuffle(rng *rand.PCG, p *[9]int) {
	bands := shuffle(rng, 3)
	for b := range 3 {
		lines := shuffle(rng, 3)
		for k := range 3 {
			p[3*b+k] = 3*bands[b] + lines[k]
		}
	}
}
