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

// DefaultChunk is the number of puzzles per task: 82 KB of payload and of
// result for one-line puzzles, well under the 1 MiB message limit, and
// about 6 ms of work for 17-clue puzzles (a million in 1,000 tasks: 6 CPU-s).
const DefaultChunk = 1000

// MaxChunk keeps a task's result under the 1 MiB message limit: at most
// about 240 bytes a puzzle (a "multiple" line with its two solutions, and
// its reject in the summary).
const MaxChunk = 3000

// maxPiece bounds the bytes of input in one task (after sudoku.Compact):
// pieces end early in files of long lines.
const maxPiece = 256 << 10

// maxPayload is the largest task payload: a piece can exceed maxPiece only
// inside a 9-row grid, which Cut does not split.
const maxPayload = 900 << 10

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
func (Solve) Version() int { return 2 }

// Plan implements tasks.Kind; a corpus job needs its inputs (PlanEnv).
func (Solve) Plan(context.Context, json.RawMessage) (tasks.Plan, error) {
	return nil, tasks.Invalid("sudoku.solve reads its inputs from the object store: plan it with PlanEnv")
}

// A task's payload is a piece of an input file as it is, cut by sudoku.Cut
// between puzzles: the header line "wopr-sudoku-chunk/2 <first line>
// <quoted file name>", then the piece's bytes. The coordinator only finds
// where to cut; the workers parse.
const chunkMagic = "wopr-sudoku-chunk/2 "

// chunk is a decoded payload.
type chunk struct {
	File string
	Line int    // the line of the file where Text starts
	Text []byte // the piece of the file
}

func (c *chunk) encode() []byte {
	head := chunkMagic + strconv.Itoa(c.Line) + " " + strconv.Quote(c.File) + "\n"
	b := make([]byte, 0, len(head)+len(c.Text))
	return append(append(b, head...), c.Text...)
}

func decodeChunk(data []byte) (*chunk, error) {
	head, text, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || !bytes.HasPrefix(head, []byte(chunkMagic)) {
		return nil, errors.New("not a sudoku chunk")
	}
	num, file, ok := bytes.Cut(head[len(chunkMagic):], []byte{' '})
	line, err := strconv.Atoi(string(num))
	if !ok || err != nil || line < 1 {
		return nil, fmt.Errorf("bad chunk header %q", head)
	}
	name, err := strconv.Unquote(string(file))
	if err != nil {
		return nil, fmt.Errorf("chunk file name: %w", err)
	}
	return &chunk{File: name, Line: line, Text: text}, nil
}

// PlanEnv implements tasks.EnvPlanner: it cuts every input into chunks of
// whole puzzles, without parsing them.
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
	var payloads [][]byte
	for _, in := range p.Inputs {
		data, err := env.Objects.Get(ctx, in.Object)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.File, err)
		}
		err = sudoku.Cut(data, size, maxPiece, func(text []byte, line, items, compacted int) error {
			if items == 0 {
				return nil // comments and blank lines only
			}
			if compacted < len(text) {
				text = sudoku.Compact(nil, text)
			}
			c := chunk{File: in.File, Line: line, Text: text}
			payload := c.encode()
			if len(payload) > maxPayload {
				return tasks.Invalid("%s:%d: the %d puzzles from this line take %d bytes, more than a task holds (%d): a 9-row grid among them spreads over too many lines",
					in.File, line, items, len(c.Text), maxPayload)
			}
			sp.pieces = append(sp.pieces, piece{File: in.File, Line: line, Items: items})
			payloads = append(payloads, payload)
			return nil
		})
		if errors.Is(err, tasks.ErrInvalid) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", in.File, err)
		}
	}
	width := len(strconv.Itoa(max(len(payloads)-1, 0)))
	for i, payload := range payloads {
		sp.tasks = append(sp.tasks, tasks.Task{ID: fmt.Sprintf("c%0*d", width, i), Payload: payload})
	}
	return sp, nil
}

// piece is what the plan knows of a chunk.
type piece struct {
	File  string
	Line  int // first line
	Items int // puzzles
}

type solvePlan struct {
	params SolveParams
	pieces []piece
	tasks  []tasks.Task
}

// Tasks implements tasks.Plan.
func (sp *solvePlan) Tasks() []tasks.Task { return sp.tasks }

// A task's result is the header line "wopr-sudoku-result/2 <summary as
// JSON>", then the chunk's lines of --out, one per puzzle in order: what
// the report needs is computed by the workers, and merging a million
// puzzles is appending their lines.
const resultMagic = "wopr-sudoku-result/2 "

// chunkSummary is the part of a chunk's result that the report merges.
type chunkSummary struct {
	Puzzles   int           `json:"puzzles"`
	Counts    [5]int        `json:"counts"`  // by sudoku.Outcome
	Clues     [82]int       `json:"clues"`   // puzzles by clues (all but malformed)
	Guesses   [][2]int      `json:"guesses"` // (guesses, puzzles), ascending (solved by search)
	Hardest   []Hard        `json:"hardest"` // the chunk's hardest, most guesses first (File left to the report)
	Rejects   []chunkReject `json:"rejects"` // in input order
	byGuesses []int         // puzzles by guesses while the chunk is solved
}

// chunkReject is a puzzle not uniquely solved; its reason is in its line
// of --out, after the outcome word.
type chunkReject struct {
	Index   int    `json:"index"` // in the chunk
	Line    int    `json:"line"`
	Outcome string `json:"outcome"`
}

// add counts a puzzle of the chunk.
func (s *chunkSummary) add(line int, g *sudoku.Grid, o sudoku.Outcome, guesses int) {
	s.Puzzles++
	s.Counts[o]++
	if o != sudoku.Malformed {
		s.Clues[g.Clues()]++
	}
	if o != sudoku.Malformed && o != sudoku.Invalid {
		for len(s.byGuesses) <= guesses {
			s.byGuesses = append(s.byGuesses, 0)
		}
		s.byGuesses[guesses]++
		if keepsHard(s.Hardest, guesses) { // before the puzzle's text is made
			s.Hardest = pushHard(s.Hardest, Hard{Line: line, Puzzle: g.String(), Guesses: guesses})
		}
	}
	if o != sudoku.Unique {
		s.Rejects = append(s.Rejects, chunkReject{Index: s.Puzzles - 1, Line: line, Outcome: o.String()})
	}
}

func encodeResult(s *chunkSummary, out []byte) ([]byte, error) {
	s.Guesses = s.Guesses[:0]
	for g, n := range s.byGuesses {
		if n > 0 {
			s.Guesses = append(s.Guesses, [2]int{g, n})
		}
	}
	head, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(resultMagic)+len(head)+1+len(out))
	b = append(append(append(b, resultMagic...), head...), '\n')
	return append(b, out...), nil
}

// decodeResult splits a chunk's result into its summary and its lines of
// --out, and checks that there is a line for each of its puzzles.
func decodeResult(data []byte, puzzles int) (chunkSummary, []byte, error) {
	var s chunkSummary
	head, out, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || !bytes.HasPrefix(head, []byte(resultMagic)) {
		return s, nil, errors.New("not a sudoku chunk result")
	}
	if err := json.Unmarshal(head[len(resultMagic):], &s); err != nil {
		return s, nil, fmt.Errorf("summary: %w", err)
	}
	if s.Puzzles != puzzles {
		return s, nil, fmt.Errorf("%d results for %d puzzles", s.Puzzles, puzzles)
	}
	if n := bytes.Count(out, []byte{'\n'}); n != puzzles || (len(out) > 0 && out[len(out)-1] != '\n') {
		return s, nil, fmt.Errorf("%d output lines for %d puzzles", n, puzzles)
	}
	return s, out, nil
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

// Report implements tasks.Plan: it merges the chunks' summaries and
// appends their lines of --out, in input order.
func (sp *solvePlan) Report(results func(id string) ([]byte, bool), sum tasks.Summary) (tasks.Report, error) {
	rep := &SolveReport{
		Rejects: []Reject{}, CluesHistogram: map[string]int{}, GuessesHistogram: map[string]int{}, Hardest: []Hard{},
		Tasks: len(sp.tasks), FailedTasks: len(sum.Failures), Failures: sum.Failures, CacheHits: sum.CacheHits,
		ElapsedSeconds: sum.Elapsed.Seconds(), Complete: len(sum.Failures) == 0,
	}
	for _, in := range sp.params.Inputs {
		rep.Files = append(rep.Files, in.File)
	}
	var clues [82]int
	guesses := map[int]int{}
	outs := make([][]byte, len(sp.tasks))
	var rejected bytes.Buffer
	reject := func(file string, line int, outcome, reason string) {
		rep.Rejects = append(rep.Rejects, Reject{File: file, Line: line, Outcome: outcome, Reason: reason})
		rejected.WriteString(file + ":" + strconv.Itoa(line) + ": " + outcome + ": " + reason + "\n")
	}
	for ti, t := range sp.tasks {
		pc := sp.pieces[ti]
		rep.Puzzles += pc.Items
		data, ok := results(t.ID)
		if !ok {
			// The task failed: its lines are still accounted for.
			if err := sp.failedChunk(t, reject, &outs[ti]); err != nil {
				return nil, err
			}
			continue
		}
		s, out, err := decodeResult(data, pc.Items)
		if err != nil {
			return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
		}
		outs[ti] = out
		rep.Unique += s.Counts[sudoku.Unique]
		rep.Multiple += s.Counts[sudoku.Multiple]
		rep.Unsolvable += s.Counts[sudoku.Unsolvable]
		rep.Invalid += s.Counts[sudoku.Invalid]
		rep.Malformed += s.Counts[sudoku.Malformed]
		for i, n := range s.Clues {
			clues[i] += n
		}
		for _, gn := range s.Guesses {
			guesses[gn[0]] += gn[1]
		}
		for _, h := range s.Hardest {
			h.File = pc.File
			rep.Hardest = pushHard(rep.Hardest, h)
		}
		if err := rejects(s.Rejects, out, func(rj chunkReject, reason string) {
			reject(pc.File, rj.Line, rj.Outcome, reason)
		}); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
		}
	}
	for i, n := range clues {
		if n > 0 {
			rep.CluesHistogram[strconv.Itoa(i)] = n
		}
	}
	for g, n := range guesses {
		rep.GuessesHistogram[strconv.Itoa(g)] = n
	}
	if sum.Elapsed > 0 {
		rep.PuzzlesPerSecond = float64(rep.Puzzles) / sum.Elapsed.Seconds()
	}
	rep.outputs = map[string]string{}
	if sp.params.Out {
		if err := sum.PutOutput(context.Background(), rep.outputs, "out", bytes.Join(outs, nil)); err != nil {
			return nil, err
		}
	}
	if sp.params.Rejects {
		if err := sum.PutOutput(context.Background(), rep.outputs, "rejects", rejected.Bytes()); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// rejects calls f with each reject of a chunk and its reason, read from
// the chunk's lines of --out ("<outcome>: <reason>").
func rejects(list []chunkReject, out []byte, f func(chunkReject, string)) error {
	index := 0
	for _, rj := range list {
		if rj.Index < index {
			return fmt.Errorf("rejects out of order at index %d", rj.Index)
		}
		for ; index < rj.Index; index++ {
			i := bytes.IndexByte(out, '\n')
			if i < 0 {
				return fmt.Errorf("reject %d past the output lines", rj.Index)
			}
			out = out[i+1:]
		}
		line, _, _ := bytes.Cut(out, []byte{'\n'})
		reason, ok := bytes.CutPrefix(line, []byte(rj.Outcome+": "))
		if !ok {
			return fmt.Errorf("output line %d of a %s puzzle is %q", rj.Index, rj.Outcome, line)
		}
		f(rj, string(reason))
	}
	return nil
}

// failedChunk accounts for the puzzles of a task that failed: each is
// "unsolved" in --out and a reject.
func (sp *solvePlan) failedChunk(t tasks.Task, reject func(file string, line int, outcome, reason string), out *[]byte) error {
	c, err := decodeChunk(t.Payload)
	if err != nil {
		return fmt.Errorf("task %s: %w", t.ID, err)
	}
	const reason = "not solved: its task failed"
	return sudoku.ParseBytes(c.Text, c.Line, func(it sudoku.Item) error {
		*out = append(*out, "unsolved: "+reason+"\n"...)
		reject(c.File, it.Line, "unsolved", reason)
		return nil
	})
}

// hardestKept is the number of hardest puzzles a report lists.
const hardestKept = 10

// keepsHard tells whether pushHard would keep a puzzle with these guesses.
func keepsHard(h []Hard, guesses int) bool {
	return len(h) < hardestKept || guesses > h[hardestKept-1].Guesses
}

// pushHard keeps the hardestKept puzzles with most guesses, the earliest
// first among equals (x comes after those already kept).
func pushHard(h []Hard, x Hard) []Hard {
	if !keepsHard(h, x.Guesses) {
		return h
	}
	i, _ := slices.BinarySearchFunc(h, x.Guesses, func(e Hard, g int) int {
		if e.Guesses >= g {
			return -1
		}
		return 1
	})
	h = slices.Insert(h, i, x)
	if len(h) > hardestKept {
		h = h[:hardestKept]
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
