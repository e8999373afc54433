// Package sudokujobs holds the job kinds of Sudoku: solving whole corpora
// ("sudoku.solve") and generating puzzles ("sudoku.generate").
//
// A corpus job loses nothing: every puzzle line of the input comes out as
// exactly one line of the output, in input order, as a solution or as the
// outcome word and the reason; every line that was not uniquely solved is
// also a reject with its file and line.
package sudokujobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// DefaultChunk is the number of puzzles per task: about 100 KB of payload
// and of result, well under the 1 MiB message limit, and 5-10 ms of work.
const DefaultChunk = 1000

// MaxChunk keeps a task's result (about 100 bytes a puzzle) under the limit.
const MaxChunk = 5000

func init() { tasks.Register(Solve{}) }

// Input is one input file: its name as the user gave it, and the object
// the client uploaded it to.
type Input struct {
	File   string `json:"file"`
	Object string `json:"object"`
}

// SolveParams are the parameters of a "sudoku.solve" job.
type SolveParams struct {
	Inputs []Input `json:"inputs"`
	// Chunk is the number of puzzles per task (0: DefaultChunk).
	Chunk int `json:"chunk,omitempty"`
	// Out and Rejects ask for the output files.
	Out     bool `json:"out,omitempty"`
	Rejects bool `json:"rejects,omitempty"`
}

// Validate checks the parameters.
func (p SolveParams) Validate() error {
	if len(p.Inputs) == 0 {
		return tasks.Invalid("sudoku solve: no input files")
	}
	if p.Chunk < 0 || p.Chunk > MaxChunk {
		return tasks.Invalid("chunk %d: want 1 to %d puzzles per task (0: %d)", p.Chunk, MaxChunk, DefaultChunk)
	}
	for _, in := range p.Inputs {
		if in.Object == "" {
			return tasks.Invalid("input %s was not uploaded", in.File)
		}
	}
	return nil
}

// Solve is the "sudoku.solve" kind.
type Solve struct{}

// Name implements tasks.Kind.
func (Solve) Name() string { return "sudoku.solve" }

// Version implements tasks.Kind.
func (Solve) Version() int { return 1 }

// Plan implements tasks.Kind; a corpus job needs its inputs (PlanEnv).
func (Solve) Plan(context.Context, json.RawMessage) (tasks.Plan, error) {
	return nil, tasks.Invalid("sudoku.solve reads its inputs from the object store: plan it with PlanEnv")
}

// chunk is the payload of one task: puzzles of one file with their lines.
// Malformed lines travel too, so that the output has a line for each.
type chunk struct {
	File  string
	Lines []int
	Cells string // 81 characters a puzzle, '.' for empty; dots for malformed items
	Bad   []string
}

// chunkMagic starts a chunk on the wire: then the quoted file name, then a
// line per puzzle, "<line> <81 cells>" or "<line> !<reason>". Text, not
// JSON: decoding JSON cost 5% of a corpus job.
const chunkMagic = "wopr-sudoku-chunk/1 "

func (c *chunk) encode() []byte {
	var b bytes.Buffer
	b.Grow(len(c.Lines)*90 + 64)
	b.WriteString(chunkMagic)
	b.WriteString(strconv.Quote(c.File))
	b.WriteByte('\n')
	for i, line := range c.Lines {
		b.WriteString(strconv.Itoa(line))
		b.WriteByte(' ')
		if bad := c.badReason(i); bad != "" {
			b.WriteByte('!')
			b.WriteString(strings.ReplaceAll(bad, "\n", " "))
		} else {
			b.WriteString(c.Cells[81*i : 81*i+81])
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func decodeChunk(data []byte) (*chunk, error) {
	head, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || !bytes.HasPrefix(head, []byte(chunkMagic)) {
		return nil, errors.New("not a sudoku chunk")
	}
	file, err := strconv.Unquote(string(head[len(chunkMagic):]))
	if err != nil {
		return nil, fmt.Errorf("chunk file name: %w", err)
	}
	c := &chunk{File: file}
	var cells strings.Builder
	cells.Grow(len(rest))
	for len(rest) > 0 {
		var line []byte
		line, rest, ok = bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return nil, errors.New("unterminated chunk line")
		}
		num, item, ok := bytes.Cut(line, []byte{' '})
		n, err := strconv.Atoi(string(num))
		if !ok || err != nil {
			return nil, fmt.Errorf("bad chunk line %q", line)
		}
		c.Lines = append(c.Lines, n)
		if len(item) > 0 && item[0] == '!' {
			for len(c.Bad) < len(c.Lines)-1 {
				c.Bad = append(c.Bad, "")
			}
			c.Bad = append(c.Bad, string(item[1:]))
			cells.WriteString(emptyCells)
			continue
		}
		if len(item) != 81 {
			return nil, fmt.Errorf("bad chunk line %q", line)
		}
		cells.Write(item)
	}
	c.Cells = cells.String()
	return c, nil
}

// badReason is the reason an item is malformed, or "".
func (c *chunk) badReason(i int) string {
	if i < len(c.Bad) {
		return c.Bad[i]
	}
	return ""
}

// PlanEnv implements tasks.EnvPlanner: it parses every input and cuts it into
// chunks.
func (Solve) PlanEnv(ctx context.Context, raw json.RawMessage, env tasks.PlanEnv) (tasks.Plan, error) {
	var p SolveParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("sudoku.solve parameters: %v", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	size := p.Chunk
	if size == 0 {
		size = DefaultChunk
	}
	sp := &solvePlan{params: p}
	for _, in := range p.Inputs {
		data, err := env.Objects.Get(ctx, in.Object)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.File, err)
		}
		cur := &chunk{File: in.File}
		var cells strings.Builder
		flush := func() {
			if len(cur.Lines) == 0 {
				return
			}
			cur.Cells = cells.String()
			sp.chunks = append(sp.chunks, cur)
			cur, cells = &chunk{File: in.File}, strings.Builder{}
		}
		err = sudoku.Parse(bytes.NewReader(data), func(it sudoku.Item) error {
			cur.Lines = append(cur.Lines, it.Line)
			if it.Err != nil {
				for len(cur.Bad) < len(cur.Lines)-1 {
					cur.Bad = append(cur.Bad, "")
				}
				cur.Bad = append(cur.Bad, it.Err.Error())
				cells.WriteString(emptyCells)
			} else {
				cells.WriteString(it.Grid.String())
			}
			if len(cur.Lines) == size {
				flush()
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", in.File, err)
		}
		flush()
	}
	width := len(strconv.Itoa(max(len(sp.chunks)-1, 0)))
	for i, c := range sp.chunks {
		payload := c.encode()
		sp.tasks = append(sp.tasks, tasks.Task{ID: fmt.Sprintf("c%0*d", width, i), Payload: payload})
	}
	return sp, nil
}

var emptyCells = strings.Repeat(".", 81)

type solvePlan struct {
	params SolveParams
	chunks []*chunk
	tasks  []tasks.Task
}

// Tasks implements tasks.Plan.
func (sp *solvePlan) Tasks() []tasks.Task { return sp.tasks }

// chunkResult is a task's answer: per puzzle of the chunk, in order, the
// outcome letter, the guesses, and the solution or the reason. On the wire
// it is one line per puzzle, "<letter> <guesses> <answer>": a tenth of the
// cost of JSON to decode when a million puzzles are merged.
type chunkResult struct {
	Outcomes []byte
	Guesses  []int
	Answers  []string
}

func (r *chunkResult) encode() []byte {
	var b bytes.Buffer
	b.Grow(len(r.Outcomes) * 90)
	for i, o := range r.Outcomes {
		b.WriteByte(o)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(r.Guesses[i]))
		b.WriteByte(' ')
		b.WriteString(strings.ReplaceAll(r.Answers[i], "\n", " "))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func decodeChunkResult(data []byte, n int) (chunkResult, error) {
	r := chunkResult{Outcomes: make([]byte, 0, n), Guesses: make([]int, 0, n), Answers: make([]string, 0, n)}
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte{'\n'})
		if !ok {
			return r, errors.New("unterminated line")
		}
		data = rest
		sp := bytes.IndexByte(line, ' ')
		if sp != 1 {
			return r, fmt.Errorf("bad line %q", line)
		}
		gs, answer, ok := bytes.Cut(line[2:], []byte{' '})
		if !ok {
			return r, fmt.Errorf("bad line %q", line)
		}
		g, err := strconv.Atoi(string(gs))
		if err != nil {
			return r, fmt.Errorf("bad guesses in %q", line)
		}
		r.Outcomes = append(r.Outcomes, line[0])
		r.Guesses = append(r.Guesses, g)
		r.Answers = append(r.Answers, string(answer))
	}
	if len(r.Outcomes) != n {
		return r, fmt.Errorf("%d results for %d puzzles", len(r.Outcomes), n)
	}
	return r, nil
}

// letterOf encodes an outcome in a result: u, m, s (unsolvable), i, x
// (malformed).
func letterOf(o sudoku.Outcome) byte {
	switch o {
	case sudoku.Unique:
		return 'u'
	case sudoku.Multiple:
		return 'm'
	case sudoku.Unsolvable:
		return 's'
	case sudoku.Invalid:
		return 'i'
	}
	return 'x'
}

func outcomeOf(b byte) sudoku.Outcome {
	switch b {
	case 'u':
		return sudoku.Unique
	case 'm':
		return sudoku.Multiple
	case 's':
		return sudoku.Unsolvable
	case 'i':
		return sudoku.Invalid
	}
	return sudoku.Malformed
}

// SolveReport is the report of a "sudoku.solve" job.
type SolveReport struct {
	Puzzles          int             `json:"puzzles"`
	Unique           int             `json:"unique"`
	Multiple         int             `json:"multiple"`
	Unsolvable       int             `json:"unsolvable"`
	Invalid          int             `json:"invalid"`
	Malformed        int             `json:"malformed"`
	Rejects          []Reject        `json:"rejects"`
	CluesHistogram   map[string]int  `json:"clues_histogram"`
	GuessesHistogram map[string]int  `json:"guesses_histogram"`
	Hardest          []Hard          `json:"hardest"`
	PuzzlesPerSecond float64         `json:"puzzles_per_second"`
	ElapsedSeconds   float64         `json:"elapsed_seconds"`
	Files            []string        `json:"files"`
	Tasks            int             `json:"tasks"`
	FailedTasks      int             `json:"failed_tasks"`
	Failures         []tasks.Failure `json:"failures,omitempty"`
	CacheHits        int64           `json:"cache_hits"`
	Complete         bool            `json:"complete"`

	outputs map[string]string
}

// Reject is a puzzle that was not uniquely solved.
type Reject struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

// Hard is one of the puzzles that took the most guesses.
type Hard struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Puzzle  string `json:"puzzle"`
	Guesses int    `json:"guesses"`
}

// Outputs implements tasks.OutputReport.
func (r *SolveReport) Outputs() map[string]string { return r.outputs }

// Report implements tasks.Plan: it walks the chunks in input order.
func (sp *solvePlan) Report(results func(id string) ([]byte, bool), sum tasks.Summary) (tasks.Report, error) {
	rep := &SolveReport{
		Rejects: []Reject{}, CluesHistogram: map[string]int{}, GuessesHistogram: map[string]int{}, Hardest: []Hard{},
		Tasks: len(sp.tasks), FailedTasks: len(sum.Failures), Failures: sum.Failures, CacheHits: sum.CacheHits,
		ElapsedSeconds: sum.Elapsed.Seconds(), Complete: len(sum.Failures) == 0,
	}
	for _, in := range sp.params.Inputs {
		rep.Files = append(rep.Files, in.File)
	}
	var out, rejects bytes.Buffer
	reject := func(file string, line int, o sudoku.Outcome, reason string) {
		rep.Rejects = append(rep.Rejects, Reject{File: file, Line: line, Outcome: o.String(), Reason: reason})
		fmt.Fprintf(&rejects, "%s:%d: %s: %s\n", file, line, o, reason)
	}
	for ti, t := range sp.tasks {
		c := sp.chunks[ti]
		data, ok := results(t.ID)
		var r chunkResult
		if ok {
			var err error
			if r, err = decodeChunkResult(data, len(c.Lines)); err != nil {
				return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
			}
		}
		for i, line := range c.Lines {
			rep.Puzzles++
			if !ok {
				// The task failed: its lines are still accounted for.
				reason := "not solved: its task failed"
				fmt.Fprintf(&out, "unsolved: %s\n", reason)
				rejects.WriteString(fmt.Sprintf("%s:%d: unsolved: %s\n", c.File, line, reason))
				rep.Rejects = append(rep.Rejects, Reject{File: c.File, Line: line, Outcome: "unsolved", Reason: reason})
				continue
			}
			o := outcomeOf(r.Outcomes[i])
			if o != sudoku.Malformed {
				rep.CluesHistogram[strconv.Itoa(81-strings.Count(c.Cells[81*i:81*i+81], "."))]++
			}
			if o != sudoku.Malformed && o != sudoku.Invalid {
				rep.GuessesHistogram[strconv.Itoa(r.Guesses[i])]++
				rep.Hardest = pushHard(rep.Hardest, Hard{File: c.File, Line: line, Puzzle: c.Cells[81*i : 81*i+81], Guesses: r.Guesses[i]})
			}
			switch o {
			case sudoku.Unique:
				rep.Unique++
				out.WriteString(r.Answers[i])
				out.WriteByte('\n')
				continue
			case sudoku.Multiple:
				rep.Multiple++
			case sudoku.Unsolvable:
				rep.Unsolvable++
			case sudoku.Invalid:
				rep.Invalid++
			default:
				rep.Malformed++
			}
			fmt.Fprintf(&out, "%s: %s\n", o, r.Answers[i])
			reject(c.File, line, o, r.Answers[i])
		}
	}
	if sum.Elapsed > 0 {
		rep.PuzzlesPerSecond = float64(rep.Puzzles) / sum.Elapsed.Seconds()
	}
	rep.outputs = map[string]string{}
	ctx := context.Background()
	if sp.params.Out && sum.Objects != nil {
		name := "output/" + sum.Job + "/out"
		if err := sum.Objects.Put(ctx, name, out.Bytes()); err != nil {
			return nil, err
		}
		rep.outputs["out"] = name
	}
	if sp.params.Rejects && sum.Objects != nil {
		name := "output/" + sum.Job + "/rejects"
		if err := sum.Objects.Put(ctx, name, rejects.Bytes()); err != nil {
			return nil, err
		}
		rep.outputs["rejects"] = name
	}
	return rep, nil
}

// pushHard keeps the 10 puzzles with most guesses, the earliest first among
// equals.
func pushHard(h []Hard, x Hard) []Hard {
	const keep = 10
	if len(h) == keep && x.Guesses <= h[keep-1].Guesses {
		return h
	}
	i, _ := slices.BinarySearchFunc(h, x.Guesses, func(e Hard, g int) int {
		if e.Guesses >= g {
			return -1
		}
		return 1
	})
	h = slices.Insert(h, i, x)
	if len(h) > keep {
		h = h[:keep]
	}
	return h
}

// Text implements tasks.Report.
func (r *SolveReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sudoku corpus: %s\n", strings.Join(r.Files, ", "))
	if !r.Complete {
		fmt.Fprintf(&b, "INCOMPLETE: %d of %d tasks failed; their puzzles are listed as unsolved\n", r.FailedTasks, r.Tasks)
	}
	row := func(label string, n int) {
		fmt.Fprintf(&b, "  %-12s %10d\n", label, n)
	}
	row("puzzles", r.Puzzles)
	row("unique", r.Unique)
	row("multiple", r.Multiple)
	row("unsolvable", r.Unsolvable)
	row("invalid", r.Invalid)
	row("malformed", r.Malformed)
	fmt.Fprintf(&b, "  %.0f puzzles/s, %.3f s, %d tasks, %d cache hits\n", r.PuzzlesPerSecond, r.ElapsedSeconds, r.Tasks, r.CacheHits)
	if len(r.Hardest) > 0 {
		b.WriteString("  hardest (guesses):\n")
		for _, h := range r.Hardest {
			fmt.Fprintf(&b, "    %6d  %s:%d  %s\n", h.Guesses, h.File, h.Line, h.Puzzle)
		}
	}
	const show = 20
	if n := len(r.Rejects); n > 0 {
		fmt.Fprintf(&b, "  rejects: %d\n", n)
		for _, rj := range r.Rejects[:min(n, show)] {
			fmt.Fprintf(&b, "    %s:%d: %s: %s\n", rj.File, rj.Line, rj.Outcome, rj.Reason)
		}
		if n > show {
			fmt.Fprintf(&b, "    ... and %d more (--rejects FILE writes them all)\n", n-show)
		}
	}
	return b.String()
}
