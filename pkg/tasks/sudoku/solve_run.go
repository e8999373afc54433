package sudoku

import (
	"context"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// cacheMinGuesses is the difficulty from which a puzzle's result is kept in
// the worker's Badger cache. A Badger read or write costs a few
// microseconds, about what solving an easy puzzle costs (caching every
// puzzle doubled the CPU of a 17-clue corpus job), while a puzzle of 16
// guesses or more takes over ten times as long to solve again as to keep
// (docs/benchmarks.md). Puzzles below it are solved again when they
// repeat; a rerun of a whole chunk is answered by the coordinator's cache
// either way.
const cacheMinGuesses = 16

// cachePrefix starts the keys of cached puzzle results (v2: the reasons of
// Solve's version 4).
const cachePrefix = "sudoku/v2/"

// NewRunner implements tasks.Kind.
func (Solve) NewRunner(env tasks.Env) tasks.Runner {
	r := &solveRunner{cache: env.Cache, objects: env.Objects, ahead: processReadAhead(env), solver: sudoku.NewSolver()}
	if env.Cache != nil {
		r.known = knownPuzzles(env.Cache)
	}
	return r
}

// solveRunner solves chunks with one solver, consulting the worker's cache
// per puzzle (keyed by the puzzle itself), so that a hard puzzle repeated in
// a corpus, or in another corpus, is solved once.
type solveRunner struct {
	cache   tasks.Cache
	objects tasks.Objects // the inputs that tasks name
	ahead   *readAhead    // the process's reads of the next tasks' pieces, or nil
	solver  *sudoku.Solver
	known   *puzzleSet
	key     []byte
}

// puzzleSet is a Bloom filter of the puzzles in a worker's cache, so that
// the runner asks Badger only about puzzles that are likely there. A
// lookup is on the path of every puzzle of every corpus, so it takes no
// lock and reads one word (a blocked filter: a puzzle's three bits are in
// the same 64-bit word), and the filter is as small as its contents allow,
// to stay in the CPU's cache: 32 to 64 bits per puzzle, at least 2^16
// bits (TestPuzzleSet holds its false matches, each a Badger read, under
// 0.2%). When it fills it is rebuilt twice as large from the puzzles'
// fingerprints, kept beside it (8 bytes a puzzle); a large filter of fixed
// size would cost a cache miss per lookup. It is shared by the slots of a
// process and filled once from the cache's keys.
type puzzleSet struct {
	once   sync.Once
	filter atomic.Pointer[bloom]
	mu     sync.Mutex // held to add
	prints []uint64   // fingerprints of the puzzles added
}

// bloom is a filter of 2^k bits, read without lock.
type bloom struct {
	words []atomic.Uint64
	mask  uint64 // len(words) - 1
}

const (
	minFilterBits = 1 << 16
	bitsPerPuzzle = 32
	maxFilterBits = 1 << 30
)

func newPuzzleSet() *puzzleSet {
	ps := &puzzleSet{}
	ps.filter.Store(newBloom(minFilterBits))
	return ps
}

func newBloom(bits int) *bloom {
	return &bloom{words: make([]atomic.Uint64, bits/64), mask: uint64(bits/64 - 1)}
}

// bitsOf returns the word of a fingerprint and its three bits in it: the
// word from the low bits, the bits from bits 40 to 57 (the word index
// takes at most 24).
func (f *bloom) bitsOf(h uint64) (*atomic.Uint64, uint64) {
	return &f.words[h&f.mask], 1<<(h>>40&63) | 1<<(h>>46&63) | 1<<(h>>52&63)
}

func (f *bloom) has(h uint64) bool {
	w, bits := f.bitsOf(h)
	return w.Load()&bits == bits
}

func (f *bloom) add(h uint64) {
	w, bits := f.bitsOf(h)
	w.Or(bits)
}

var puzzleSets sync.Map // tasks.Cache -> *puzzleSet

func knownPuzzles(c tasks.Cache) *puzzleSet {
	v, _ := puzzleSets.LoadOrStore(c, newPuzzleSet())
	ps := v.(*puzzleSet)
	ps.once.Do(func() {
		_ = c.Keys([]byte(cachePrefix), func(key []byte) error {
			if g, err := sudoku.ParseLine(string(key[len(cachePrefix):])); err == nil {
				ps.add(&g)
			}
			return nil
		})
	})
	return ps
}

// fingerprintSeed seeds the fingerprints of one process (they are never
// stored).
var fingerprintSeed = maphash.MakeSeed()

func fingerprint(g *sudoku.Grid) uint64 { return maphash.Bytes(fingerprintSeed, g[:]) }

func (ps *puzzleSet) has(g *sudoku.Grid) bool { return ps.filter.Load().has(fingerprint(g)) }

func (ps *puzzleSet) add(g *sudoku.Grid) {
	h := fingerprint(g)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.prints = append(ps.prints, h)
	f := ps.filter.Load()
	bits := 64 * len(f.words)
	if len(ps.prints)*bitsPerPuzzle <= bits || bits >= maxFilterBits {
		f.add(h)
		return
	}
	// Full: a filter twice as large with every puzzle. Lookups meanwhile
	// read the old one, which lacks at most the puzzles added since (a
	// miss costs solving the puzzle again).
	f = newBloom(2 * bits)
	for _, h := range ps.prints {
		f.add(h)
	}
	ps.filter.Store(f)
}

// encodeAnswer is a puzzle's result in the cache: outcome letter, guesses
// and answer, separated by spaces.
func encodeAnswer(o sudoku.Outcome, guesses int, answer string) []byte {
	return []byte(string(letterOf(o)) + " " + strconv.Itoa(guesses) + " " + answer)
}

// decodeAnswer reads a cached result; for a unique puzzle, sol is its
// solution (81 digits 1-9, or ok is false).
func decodeAnswer(v []byte) (o sudoku.Outcome, guesses int, sol sudoku.Grid, answer string, ok bool) {
	parts := strings.SplitN(string(v), " ", 3)
	if len(parts) != 3 || len(parts[0]) != 1 {
		return 0, 0, sol, "", false
	}
	g, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0, 0, sol, "", false
	}
	o, ok = outcomeOf(parts[0][0])
	if o == sudoku.Unique {
		sol, err = sudoku.ParseLine(parts[2])
		ok = ok && err == nil && len(parts[2]) == cells && sol.Clues() == cells
	}
	return o, g, sol, parts[2], ok
}

// letterOf encodes an outcome in the cache: u, m, s (unsolvable), i, x
// (malformed).
func letterOf(o sudoku.Outcome) byte { return "umsix"[o] }

func outcomeOf(b byte) (sudoku.Outcome, bool) {
	i := strings.IndexByte("umsix", b)
	return sudoku.Outcome(max(i, 0)), i >= 0
}

// answerOf is the text after the outcome word in --out (the solution
// itself for a unique puzzle).
func answerOf(sr *sudoku.Result) string {
	switch sr.Outcome {
	case sudoku.Unique:
		return sr.Solution.String()
	case sudoku.Multiple:
		return "at least 2 solutions: " + sr.Solution.String() + " " + sr.Second.String()
	case sudoku.Unsolvable:
		if sr.Reason == "" {
			return "no solution"
		}
	}
	return oneLine(sr.Reason)
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func (r *solveRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	c, wait, err := r.ahead.read(ctx, payload, r.objects)
	defer wait()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.solve task: %w", err))
	}
	var sum chunkSummary
	// The body after room for the header; a packed solution is half a line.
	out := make([]byte, headRoom, headRoom+len(c.Text)/2+len(c.Text)/8)
	var hits int64
	err = sudoku.ParseBytes(c.Text, c.Line, func(it sudoku.Item) error {
		if sum.Puzzles&255 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if it.Err != nil {
			emit(&sum, &out, it.Line, &it.Grid, sudoku.Malformed, 0, nil, oneLine(it.Err.Error()))
			return nil
		}
		if r.cache != nil && r.known.has(&it.Grid) {
			if v, ok, err := r.cache.Get(r.puzzleKey(&it.Grid)); err == nil && ok {
				if o, g, sol, a, ok := decodeAnswer(v); ok {
					hits++
					emit(&sum, &out, it.Line, &it.Grid, o, g, &sol, a)
					return nil
				}
			}
		}
		sr := r.solver.Classify(it.Grid)
		if sr.Outcome == sudoku.Unique {
			// The common case: no text is made unless the puzzle is cached.
			emit(&sum, &out, it.Line, &it.Grid, sudoku.Unique, sr.Guesses, &sr.Solution, "")
			if r.cache != nil && sr.Guesses >= cacheMinGuesses {
				r.remember(&it.Grid, sudoku.Unique, sr.Guesses, sr.Solution.String())
			}
			return nil
		}
		answer := answerOf(&sr)
		emit(&sum, &out, it.Line, &it.Grid, sr.Outcome, sr.Guesses, nil, answer)
		if r.cache != nil && sr.Guesses >= cacheMinGuesses {
			r.remember(&it.Grid, sr.Outcome, sr.Guesses, answer)
		}
		return nil
	})
	if err != nil {
		return tasks.Output{}, err
	}
	data, err := encodeResult(&sum, out, headRoom)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data, CacheHits: hits}, nil
}

// emit counts a puzzle and writes it to the result: a unique puzzle's
// solution sol packed, any other its line of --out, "<outcome>: <answer>".
func emit(sum *chunkSummary, out *[]byte, line int, g *sudoku.Grid, o sudoku.Outcome, guesses int, sol *sudoku.Grid, answer string) {
	sum.add(line, g, o, guesses)
	if o == sudoku.Unique {
		*out = packSolution(*out, sol)
		return
	}
	*out = append(append(append(append(*out, o.String()...), ": "...), answer...), '\n')
}

// puzzleKey is the cache key of a puzzle's result.
func (r *solveRunner) puzzleKey(g *sudoku.Grid) []byte {
	r.key = g.Append(append(r.key[:0], cachePrefix...))
	return r.key
}

// remember keeps a puzzle's result in the cache.
func (r *solveRunner) remember(g *sudoku.Grid, o sudoku.Outcome, guesses int, answer string) {
	if r.cache.Put(r.puzzleKey(g), encodeAnswer(o, guesses, answer)) == nil {
		r.known.add(g)
	}
}
