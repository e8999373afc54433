package sudokujobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// NewRunner implements tasks.Kind.
func (Solve) NewRunner(env tasks.Env) tasks.Runner {
	return &solveRunner{cache: env.Cache, solver: sudoku.NewSolver()}
}

// solveRunner solves chunks with one solver, consulting the worker's cache
// per puzzle (keyed by the puzzle itself), so that a puzzle repeated in a
// corpus, or in another corpus, is solved once.
type solveRunner struct {
	cache  tasks.Cache
	solver *sudoku.Solver
	key    []byte
}

// puzzleKey is the cache key of a puzzle's result.
func (r *solveRunner) puzzleKey(cells string) []byte {
	r.key = append(append(r.key[:0], "sudoku/v1/"...), cells...)
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
	var c chunk
	if err := json.Unmarshal(payload, &c); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.solve task: %w", err))
	}
	if len(c.Cells) != 81*len(c.Lines) {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.solve task: %d cells for %d puzzles", len(c.Cells), len(c.Lines)))
	}
	res := chunkResult{Guesses: make([]int, len(c.Lines)), Answers: make([]string, len(c.Lines))}
	outcomes := make([]byte, len(c.Lines))
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
		if r.cache != nil {
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
		if r.cache != nil {
			_ = r.cache.Put(r.puzzleKey(cells), encodeAnswer(o, sr.Guesses, answer))
		}
	}
	res.Outcomes = string(outcomes)
	data, err := json.Marshal(res)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data, CacheHits: hits}, nil
}
