package sudoku

import (
	"bytes"
	"context"
	"fmt"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// Check implements tasks.Checks: a chunk's result says something of every
// puzzle of its piece, in order, and what it says can be checked without
// solving: a unique puzzle's solution is a solution of its givens
// (sudoku.Check, which shares nothing with the solvers), an invalid one's
// givens conflict, a multiple or unsolvable one's do not, and only lines
// that are not puzzles are malformed. That a unique puzzle has no second
// solution, or an unsolvable one none, takes a search: that is what a
// second worker checks (tasks.Spec.Verify). The piece is read again from
// the object store.
func (sp *solvePlan) Check(id string, data []byte) error {
	ti := -1
	for i, t := range sp.tasks {
		if t.ID == id {
			ti = i
			break
		}
	}
	if ti < 0 || sp.tasks[ti].Payload == nil {
		return nil // not a task of the plan, or merged: the runtime refuses it
	}
	r, err := decodeResult(data, sp.pieces[ti].Items)
	if err != nil {
		return err
	}
	out, err := r.expand(nil, true, func(chunkReject, string) {})
	if err != nil {
		return err
	}
	c, err := decodeChunk(context.Background(), sp.tasks[ti].Payload, sp.objects)
	if err != nil {
		return fmt.Errorf("read the task's puzzles: %w", err)
	}
	return checkLines(c, r, out)
}

// checkLines checks out, a chunk's lines of --out, and the figures of its
// summary r against the puzzles of its piece c.
func checkLines(c *chunk, r *chunkResult, out []byte) error {
	n, rejects := 0, r.Rejects
	var counts [5]int
	var clues [82]int
	err := sudoku.ParseBytes(c.Text, c.Line, func(it sudoku.Item) error {
		n++
		line, rest, ok := bytes.Cut(out, []byte{'\n'})
		if !ok {
			return fmt.Errorf("no answer for the puzzle of line %d", it.Line)
		}
		out = rest
		word, _, found := bytes.Cut(line, []byte(": "))
		o := string(word)
		if !found {
			o = sudoku.Unique.String()
		}
		for _, oc := range sudoku.Outcomes {
			if oc.String() == o {
				counts[oc]++
				if oc != sudoku.Malformed {
					clues[it.Grid.Clues()]++
				}
			}
		}
		if o != sudoku.Unique.String() {
			if len(rejects) == 0 || rejects[0].Index != n-1 || rejects[0].Line != it.Line || rejects[0].Outcome != o {
				return fmt.Errorf("the %s puzzle of line %d is not the summary's next reject", o, it.Line)
			}
			rejects = rejects[1:]
		}
		switch {
		case it.Err != nil:
			if o != sudoku.Malformed.String() {
				return fmt.Errorf("line %d is not a puzzle (%v), and its answer is %q", it.Line, it.Err, line)
			}
		case o == sudoku.Malformed.String():
			return fmt.Errorf("the puzzle of line %d is called malformed", it.Line)
		case o == sudoku.Invalid.String():
			if it.Grid.Conflict() == nil {
				return fmt.Errorf("the puzzle of line %d is called invalid, but its givens do not conflict", it.Line)
			}
		case o == sudoku.Multiple.String() || o == sudoku.Unsolvable.String():
			if err := it.Grid.Conflict(); err != nil {
				return fmt.Errorf("the puzzle of line %d is called %s, but its givens conflict: %v", it.Line, o, err)
			}
		default:
			sol, err := sudoku.ParseLine(string(line))
			if err == nil {
				err = sudoku.Check(it.Grid, sol)
			}
			if err != nil {
				return fmt.Errorf("the solution of line %d: %v", it.Line, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(out) > 0 || len(rejects) > 0 {
		return fmt.Errorf("answers past the %d puzzles", n)
	}
	if counts != r.Counts || clues != r.Clues {
		return fmt.Errorf("the summary counts %v by outcome, the answers %v (or clues disagree)", r.Counts, counts)
	}
	return nil
}
