package sudokujobs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// cacheMinGuesses is the difficulty from which a puzzle's result is kept in
// the worker's Badger cache. A Badger read or write costs a few
// microseconds, about what solving an easy puzzle costs: caching every
// puzzle doubled the CPU of a 17-clue corpus job (measured: 1.3 s of Badger
// for 1.5 s of solving per 200,000 puzzles). Puzzles below it are solved
// again when they repeat; whole chunks are cached by the worker anyway, so
// a rerun is a cache hit either way.
const cacheMinGuesses = 8

// cachePrefix starts the keys of cached puzzle results.
const cachePrefix = "sudoku/v1/"

// NewRunner implements tasks.Kind.
func (Solve) NewRunner(env tasks.Env) tasks.Runner {
	r := &solveRunner{cache: env.Cache, solver: sudoku.NewSolver()}
	if env.Cache != nil {
		r.known = knownPuzzles(env.Cache)
	}
	return r
}

// solveRunner solves chunks with one solver, consulting the worker's cache
// per puzzle (keyed by the puzzle itself), so that a hard puzzle repeated in
// a corpus, or in another corpus, is solved once.
type solveRunner struct {
	cache  tasks.Cache
	solver *sudoku.Solver
	known  *puzzleSet
	key    []byte
}

// puzzleSet holds fingerprints of the puzzles in a worker's cache, so that
// the runner asks Badger only about puzzles that are likely there; it is
// shared by the slots of a process and filled once from the cache's keys.
type puzzleSet struct {
	once sync.Once
	mu   sync.RWMutex
	fp   map[uint64]struct{}
	n    atomic.Int64 // len(fp), read without the lock
}

var puzzleSets sync.Map // tasks.Cache -> *puzzleSet

func knownPuzzles(c tasks.Cache) *puzzleSet {
	v, _ := puzzleSets.LoadOrStore(c, &puzzleSet{fp: map[uint64]struct{}{}})
	ps := v.(*puzzleSet)
	ps.once.Do(func() {
		_ = c.Keys([]byte(cachePrefix), func(key []byte) error {
			ps.fp[fingerprint(key[len(cachePrefix):])] = struct{}{}
			return nil
		})
		ps.n.Store(int64(len(ps.fp)))
	})
	return ps
}

// fingerprint is FNV-1a of the cells (a false match only costs a Badger read).
func fingerprint[S string | []byte](cells S) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(cells); i++ {
		h ^= uint64(cells[i])
		h *= 1099511628211
	}
	return h
}

func (ps *puzzleSet) has(cells string) bool {
	if ps.n.Load() == 0 {
		return false
	}
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	_, ok := ps.fp[fingerprint(cells)]
	return ok
}

func (ps *puzzleSet) add(cells string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.fp[fingerprint(cells)] = struct{}{}
	ps.n.Store(int64(len(ps.fp)))
}

// puzzleKey is the cache key of a puzzle's result.
func (r *solveRunner) puzzleKey(cells string) []byte {
	r.key = append(append(r.key[:0], cachePrefix...), cells...)
	return r.key
}

// cachedAnswer is a puzzle's result in the cache: outcome letter, guesses
// and answer, separated by spaces.
func encodeAnswer(o byte, guesses int, answer string) []byte {
	return []byte(string(o) + " " + strconv.Itoa(guesses) + " " + answer)
}

func decodeAnswer(v []byte) (o byte, guesses int, answer string, ok bool) {
	parts := strings.SplitN(string(v), " ", 3)
	if len(parts) != 3 || len(parts[0]) != 1 {
		return 0, 0, "", false
	}
	g, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0, 0, "", false
	}
	return parts[0][0], g, parts[2], true
}

func (r *solveRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	c, err := decodeChunk(payload)
	if err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.solve task: %w", err))
	}
	if len(c.Cells) != 81*len(c.Lines) {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.solve task: %d cells for %d puzzles", len(c.Cells), len(c.Lines)))
	}
	res := chunkResult{Guesses: make([]int, len(c.Lines)), Answers: make([]string, len(c.Lines))}
	outcomes := make([]byte, len(c.Lines))
	res.Outcomes = outcomes
	var hits int64
	for i := range c.Lines {
		if i&255 == 0 && ctx.Err() != nil {
			return tasks.Output{}, ctx.Err()
		}
		if bad := c.badReason(i); bad != "" {
			outcomes[i], res.Answers[i] = 'x', bad
			continue
		}
		cells := c.Cells[81*i : 81*i+81]
		if r.cache != nil && r.known.has(cells) {
			if v, ok, err := r.cache.Get(r.puzzleKey(cells)); err == nil && ok {
				if o, g, a, ok := decodeAnswer(v); ok {
					outcomes[i], res.Guesses[i], res.Answers[i] = o, g, a
					hits++
					continue
				}
			}
		}
		g, err := sudoku.ParseLine(cells)
		if err != nil {
			outcomes[i], res.Answers[i] = 'x', err.Error()
			continue
		}
		sr := r.solver.Classify(g)
		o := letterOf(sr.Outcome)
		answer := sr.Reason
		switch sr.Outcome {
		case sudoku.Unique:
			answer = sr.Solution.String()
		case sudoku.Multiple:
			answer = "at least 2 solutions: " + sr.Solution.String() + " " + sr.Second.String()
		case sudoku.Unsolvable:
			if answer == "" {
				answer = "no solution"
			}
		}
		outcomes[i], res.Guesses[i], res.Answers[i] = o, sr.Guesses, answer
		if r.cache != nil && sr.Guesses >= cacheMinGuesses {
			if r.cache.Put(r.puzzleKey(cells), encodeAnswer(o, sr.Guesses, answer)) == nil {
				r.known.add(cells)
			}
		}
	}
	return tasks.Output{Data: res.encode(), CacheHits: hits}, nil
}
