// Package sudoku holds the job kinds of Sudoku: solving whole corpora
// ("sudoku.solve") and generating puzzles ("sudoku.generate").
//
// A corpus job loses nothing: every puzzle line of the input comes out as
// exactly one line of the output, in input order, as a solution or as the
// outcome word and the reason; every line that was not uniquely solved is
// also a reject with its file and line.
package sudoku

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// DefaultChunk is the chunk size of a job whose parameters give none
// (clients choose one with AutoChunk).
const DefaultChunk = 1000

// The chunk sizes that AutoChunk chooses: about autoTasks tasks, of at
// least minAutoChunk puzzles.
const (
	autoTasks    = 64
	minAutoChunk = 100
)

// AutoChunk is the chunk size that clients choose for inputs of size bytes
// in all, when the user gives none: about autoTasks tasks, so that many
// workers share even a small corpus (a hard one above all), in chunks of
// minAutoChunk to MaxChunk puzzles. A task has a fixed cost (publishing,
// storing and acknowledging it and its result) of about 0.7 ms of CPU
// (docs/benchmarks.md): the time of some 500 easy puzzles, or 60 of
// top1465's. minAutoChunk was chosen when it was 80 easy puzzles, with a
// slower engine; the corpora it applies to, under 6,400 puzzles, take a
// fraction of a second either way (top1465's 1,465 in 15 tasks, 0.03 s;
// forum-hardest-1106's 375, 0.03 s). The number of puzzles is estimated
// from the inputs' size, 82 bytes a line: a million one-line puzzles make
// chunks of 3,000 (246 KB of payload, 123 KB of result); royle17.txt
// (49,158 puzzles), 768; top1465.txt, 100.
func AutoChunk(size int) int { return min(max(size/82/autoTasks, minAutoChunk), MaxChunk) }

// MaxChunk keeps a task's result under the 1 MiB message limit: at most
// about 240 bytes a puzzle (a "multiple" line with its two solutions, and
// its reject in the summary). A bigger result would go in parts; chunks of
// 10,000 were measured no faster on ten million puzzles
// (docs/benchmarks.md).
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
	// Chunk is the number of puzzles per task (0: DefaultChunk; clients
	// choose one with AutoChunk).
	Chunk int `json:"chunk,omitempty"`
	// Out and Rejects ask for the output files.
	Out     bool `json:"out,omitempty"`
	Rejects bool `json:"rejects,omitempty"`
}

// Validate checks the parameters.
func (p SolveParams) Validate() error {
	if len(p.Inputs) == 0 {
		return errNoInputs
	}
	if err := checkChunk(p.Chunk, strconv.Itoa(DefaultChunk)); err != nil {
		return err
	}
	for _, in := range p.Inputs {
		if in.Object == "" {
			return tasks.Invalid("input %s was not uploaded", in.File)
		}
	}
	return nil
}

// errNoInputs is the error of a corpus job without inputs.
var errNoInputs = tasks.Invalid("sudoku solve: no input files")

// checkChunk checks a corpus job's chunk (SolveParams.Chunk); zero says
// what 0 means.
func checkChunk(chunk int, zero string) error {
	if chunk < 0 || chunk > MaxChunk {
		return tasks.Invalid("chunk %d: want 1 to %d puzzles per task (0: %s)", chunk, MaxChunk, zero)
	}
	return nil
}

// Solve is the "sudoku.solve" kind.
type Solve struct{}

// Name implements tasks.Kind.
func (Solve) Name() string { return "sudoku.solve" }

// Version implements tasks.Kind. 3: a line that cannot be a row ends an
// unfinished grid; conflicts name their cells. 4: an unsolvable puzzle's
// reason says why ("no solution: r7c6 has no candidate").
func (Solve) Version() int { return 4 }

// A task's payload names its piece of an input (see UploadCorpus), and
// those of the next tasks, for the worker to read ahead (readAhead):
// "wopr-sudoku-piece/2 <first line> <object>[,<next object>...] <quoted
// file name>". The runner reads the piece from the object store: the
// coordinator neither reads nor copies the puzzles, the work queue carries
// none, and each worker fetches only the pieces of its tasks (and, while
// it pays, the next ones).
const pieceMagic = "wopr-sudoku-piece/2 "

// chunk is a decoded payload and its piece.
type chunk struct {
	File   string
	Line   int      // the line of the file where Text starts
	Object string   // the piece
	Next   []string // the pieces of the next tasks
	Text   []byte   // the piece's text
}

func (c *chunk) encode() []byte {
	b := fmt.Appendf(nil, "%s%d %s", pieceMagic, c.Line, c.Object)
	for _, n := range c.Next {
		b = append(append(b, ','), n...)
	}
	return fmt.Appendf(b, " %s\n", strconv.Quote(c.File))
}

// parseChunk reads a payload.
func parseChunk(data []byte) (*chunk, error) {
	ref, ok := bytes.CutPrefix(data, []byte(pieceMagic))
	ref, nl := bytes.CutSuffix(ref, []byte{'\n'})
	f := bytes.SplitN(ref, []byte{' '}, 3)
	if !ok || !nl || len(f) != 3 {
		return nil, fmt.Errorf("not a sudoku chunk: %q", data)
	}
	line, err := strconv.Atoi(string(f[0]))
	name, qerr := strconv.Unquote(string(f[2]))
	objects := strings.Split(string(f[1]), ",")
	if err != nil || qerr != nil || line < 1 || slices.Contains(objects, "") {
		return nil, fmt.Errorf("bad chunk %q", data)
	}
	return &chunk{File: name, Line: line, Object: objects[0], Next: objects[1:]}, nil
}

// decodeChunk reads a payload and its piece from objects.
func decodeChunk(ctx context.Context, data []byte, objects tasks.Objects) (*chunk, error) {
	c, err := parseChunk(data)
	if err != nil {
		return nil, err
	}
	if objects == nil {
		return nil, fmt.Errorf("chunk of %s in %s: no object store to read it from", c.File, c.Object)
	}
	if c.Text, err = objects.Get(ctx, c.Object); err != nil {
		return nil, fmt.Errorf("chunk of %s: %w", c.File, err)
	}
	return c, nil
}

// Plan implements tasks.Kind: it makes a task of every piece of every
// input, reading their lists (UploadCorpus), not the pieces.
func (Solve) Plan(ctx context.Context, raw json.RawMessage, env tasks.PlanEnv) (tasks.Plan, error) {
	sp, err := planCorpus(ctx, raw, env)
	if err != nil {
		return nil, err
	}
	sp.win = newWindow(sp.tasks, env.Result, func(ti int, data []byte) (*chunkResult, error) {
		return decodeResult(data, sp.pieces[ti].Items)
	}, sp.write)
	return sp, nil
}

// planCorpus makes the tasks of a corpus job ("sudoku.solve" and
// "sudoku.rate"): one of every piece of every input, from their lists.
func planCorpus(ctx context.Context, raw json.RawMessage, env tasks.PlanEnv) (*solvePlan, error) {
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
	if env.Objects == nil {
		return nil, errors.New("sudoku.solve: no object store to read the inputs from")
	}
	sp := &solvePlan{params: p, objects: env.Objects, lines: newCorpusLines(p, env.Outputs)}
	sp.totals.guesses = map[int]int{}
	var chunks []chunk
	for _, in := range p.Inputs {
		m, err := env.Objects.Get(ctx, in.Object)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.File, err)
		}
		err = readManifest(m, size, func(line, items int, object string) {
			sp.pieces = append(sp.pieces, piece{File: in.File, Line: line, Items: items})
			chunks = append(chunks, chunk{File: in.File, Line: line, Object: object})
		})
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.File, err)
		}
		if len(chunks) > env.Limit() {
			return nil, tasks.Invalid("--chunk %d: %s pieces of %d puzzles, more than the %s tasks a job may have",
				size, tasks.Thousands(uint64(len(chunks))), size, tasks.Thousands(uint64(env.Limit())))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	width := len(strconv.Itoa(max(len(chunks)-1, 0)))
	for i, c := range chunks {
		for _, n := range chunks[i+1 : min(i+1+readAheadTasks, len(chunks))] {
			c.Next = append(c.Next, n.Object)
		}
		sp.tasks = append(sp.tasks, tasks.Task{ID: fmt.Sprintf("c%0*d", width, i), Payload: c.encode()})
	}
	return sp, nil
}

// readManifest calls f with each piece of an input's manifest, cut in
// pieces of per puzzles.
func readManifest(m []byte, per int, f func(line, items int, object string)) error {
	head, body, ok := bytes.Cut(m, []byte{'\n'})
	got, isManifest := bytes.CutPrefix(head, []byte(manifestMagic))
	if !ok || !isManifest {
		return errors.New("not a list of sudoku pieces (analyze uploads corpora as such)")
	}
	if n, err := strconv.Atoi(string(got)); err != nil || n != per {
		return tasks.Invalid("cut in pieces of %s puzzles, not %d", got, per)
	}
	for entry := range bytes.Lines(body) {
		e := bytes.Fields(entry)
		if len(e) != 3 {
			return fmt.Errorf("bad piece %q", entry)
		}
		line, err1 := strconv.Atoi(string(e[0]))
		items, err2 := strconv.Atoi(string(e[1]))
		if err1 != nil || err2 != nil || line < 1 || items < 1 {
			return fmt.Errorf("bad piece %q", entry)
		}
		f(line, items, string(e[2]))
	}
	return nil
}

// piece is what the plan knows of a chunk.
type piece struct {
	File  string
	Line  int // first line
	Items int // puzzles
}

// solvePlan merges the results of a "sudoku.solve" job in input order
// (window): what the tasks before the window's next added to the report
// is in totals, their lines in the outputs.
type solvePlan struct {
	params  SolveParams
	pieces  []piece
	tasks   []tasks.Task
	objects tasks.Objects // the inputs, for the puzzles of failed tasks
	win     *window[*chunkResult]
	totals  solveTotals
	lines   *corpusLines
}

// solveTotals are the summaries of the tasks written, added in order.
type solveTotals struct {
	counts  [5]int
	clues   [82]int
	guesses map[int]int
	hardest []Hard
}

// Tasks implements tasks.Plan.
func (sp *solvePlan) Tasks() []tasks.Task { return sp.tasks }

// A task's result is the header line "wopr-sudoku-result/3 <summary as
// JSON>", then the chunk's puzzles in order: a unique puzzle as its
// solution packed two digits to a byte (packedLen bytes, half its line of
// --out), any other as its line of --out ("<outcome>: <reason>\n"); the
// summary's rejects tell which is which. What the report needs is computed
// by the workers, and merging a million puzzles is unpacking their lines
// in order.
const resultMagic = "wopr-sudoku-result/3 "

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

// headRoom is the room a runner leaves before a result's body for its
// header (encodeResult): royle17's chunks of 3,000 puzzles have headers of
// up to 1,806 bytes; a chunk with many rejects may need more, and is
// copied.
const headRoom = 4 << 10

// encodeResult encodes a chunk's summary and body. buf holds the body
// after room bytes (0 if none): when the header fits there, it is written
// in front of the body and the result is a slice of buf, with no copy of
// the body (a task's body is about 125 KB, and that copy half the garbage
// of a worker).
func encodeResult(s *chunkSummary, buf []byte, room int) ([]byte, error) {
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
	n := len(resultMagic) + len(head) + 1
	if n <= room {
		b := buf[room-n:]
		copy(b[copy(b, resultMagic):], head)
		b[n-1] = '\n'
		return b, nil
	}
	body := buf[room:]
	b := make([]byte, 0, n+len(body))
	b = append(append(append(b, resultMagic...), head...), '\n')
	return append(b, body...), nil
}

// chunkResult is a decoded result.
type chunkResult struct {
	chunkSummary
	body []byte
}

// decodeResult reads a chunk's result; its body is checked when it is
// expanded.
func decodeResult(data []byte, puzzles int) (*chunkResult, error) {
	head, body, ok := bytes.Cut(data, []byte{'\n'})
	summary, isResult := bytes.CutPrefix(head, []byte(resultMagic))
	if !ok || !isResult {
		return nil, errors.New("not a sudoku chunk result")
	}
	r := &chunkResult{body: body}
	if err := json.Unmarshal(summary, &r.chunkSummary); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	if r.Puzzles != puzzles {
		return nil, fmt.Errorf("%d results for %d puzzles", r.Puzzles, puzzles)
	}
	return r, nil
}

// outSize is the length of the chunk's lines of --out.
func (r *chunkResult) outSize() int {
	unique := r.Puzzles - len(r.Rejects)
	return len(r.body) + unique*(cells+1-packedLen)
}

// expand appends the chunk's lines of --out to dst (nothing if write is
// false) and calls f with each reject and its reason, the text of its line
// after "<outcome>: ". It checks that the body holds exactly the chunk's
// puzzles.
func (r *chunkResult) expand(dst []byte, write bool, f func(chunkReject, string)) ([]byte, error) {
	body := r.body
	// uniques takes n unique puzzles from body.
	uniques := func(n int) error {
		if len(body) < n*packedLen {
			return fmt.Errorf("%d bytes for %d packed solutions", len(body), n)
		}
		if write {
			var ok bool
			if dst, ok = unpackSolutions(dst, body[:n*packedLen]); !ok {
				return errors.New("a packed solution is not made of digits 1-9")
			}
		}
		body = body[n*packedLen:]
		return nil
	}
	next := 0 // the index of the next puzzle
	for _, rj := range r.Rejects {
		if rj.Index < next || rj.Index >= r.Puzzles {
			return dst, fmt.Errorf("reject index %d out of order or past the %d puzzles", rj.Index, r.Puzzles)
		}
		if err := uniques(rj.Index - next); err != nil {
			return dst, err
		}
		line, rest, ok := bytes.Cut(body, []byte{'\n'})
		reason, ok2 := bytes.CutPrefix(line, []byte(rj.Outcome+": "))
		if !ok || !ok2 {
			return dst, fmt.Errorf("output line of the %s puzzle %d is %q", rj.Outcome, rj.Index, line)
		}
		f(rj, string(reason))
		if write {
			dst = append(append(dst, line...), '\n')
		}
		body, next = rest, rj.Index+1
	}
	if err := uniques(r.Puzzles - next); err != nil {
		return dst, err
	}
	if len(body) > 0 {
		return dst, fmt.Errorf("%d bytes after the last puzzle", len(body))
	}
	return dst, nil
}

const cells = 81

// packedLen is the length of a packed solution: 81 digits, two to a byte.
const packedLen = (cells + 1) / 2

// packSolution appends the packed solution g, eight cells at a time
// (pack8), which costs about half of a byte at a time in what a worker
// adds to the engine per puzzle (BenchmarkRunOverhead).
func packSolution(dst []byte, g *sudoku.Grid) []byte {
	n := len(dst)
	dst = slices.Grow(dst, packedLen)[:n+packedLen]
	p := dst[n : n+packedLen]
	for i := 0; i < cells-1; i += 8 {
		binary.LittleEndian.PutUint32(p[i/2:], pack8(binary.LittleEndian.Uint64(g[i:])))
	}
	p[packedLen-1] = g[cells-1] << 4
	return dst
}

// pack8 packs eight cells of 0 to 15 (the first in the low byte) into four
// bytes, two cells a byte, the first of each pair in the high nibble: each
// pair is made in its 16-bit lane, then the lanes' low bytes are brought
// together.
func pack8(x uint64) uint32 {
	const lanes = 0x000f000f000f000f
	y := (x&lanes)<<4 | x>>8&lanes
	y = (y | y>>8) & 0x0000ffff0000ffff
	return uint32(y | y>>16)
}

// unpacked maps a packed byte to its two digits, and tells whether both
// are 1-9 (the last byte of a solution is checked apart).
var unpacked = func() (t [256]struct {
	digits [2]byte
	ok     bool
}) {
	for b := range t {
		hi, lo := b>>4, b&15
		t[b].digits = [2]byte{'0' + byte(hi), '0' + byte(lo)}
		t[b].ok = hi >= 1 && hi <= 9 && lo >= 1 && lo <= 9
	}
	return t
}()

// unpackSolutions appends the lines of --out of packed solutions (a
// multiple of packedLen bytes); ok is false if one is not made of digits.
func unpackSolutions(dst, packed []byte) ([]byte, bool) {
	n := len(dst)
	dst = slices.Grow(dst, len(packed)/packedLen*(cells+1))
	ok := true
	for ; len(packed) >= packedLen; packed = packed[packedLen:] {
		line := dst[n : n+cells+1]
		for i, b := range packed[:packedLen-1] {
			u := &unpacked[b]
			ok = ok && u.ok
			line[2*i], line[2*i+1] = u.digits[0], u.digits[1]
		}
		last := packed[packedLen-1]
		ok = ok && last&15 == 0 && last>>4 >= 1 && last>>4 <= 9
		line[cells-1], line[cells] = '0'+last>>4, '\n'
		n += cells + 1
	}
	return dst[:n], ok
}

// SolveReport is the report of a "sudoku.solve" job.
type SolveReport struct {
	Puzzles    int `json:"puzzles"`
	Unique     int `json:"unique"`
	Multiple   int `json:"multiple"`
	Unsolvable int `json:"unsolvable"`
	Invalid    int `json:"invalid"`
	Malformed  int `json:"malformed"`
	// Rejects are the first rejectsKept puzzles not uniquely solved, in
	// input order, of RejectsTotal (--rejects gets every one).
	Rejects          []Reject       `json:"rejects"`
	RejectsTotal     int            `json:"rejects_total"`
	CluesHistogram   map[string]int `json:"clues_histogram"`
	GuessesHistogram map[string]int `json:"guesses_histogram"`
	Hardest          []Hard         `json:"hardest"`
	// PuzzlesPerSecond is the rate of the puzzles this job solved; those
	// of tasks answered from the result cache, CachedPuzzles, are not in
	// it (0 when every task was).
	PuzzlesPerSecond float64  `json:"puzzles_per_second"`
	CachedPuzzles    int      `json:"cached_puzzles"`
	Files            []string `json:"files"`

	failed      bool // tasks failed: their puzzles are rejects
	rejectsFile bool // --rejects gets every reject
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

// Merge implements tasks.Plan: it decodes a task's result and writes the
// lines of --out and the rejects of the tasks that are merged (or failed)
// without a gap before them: a corpus's lines go to the outputs as its
// results come, and only the results that wait for an earlier task are
// held (window).
func (sp *solvePlan) Merge(id string, data []byte) error { return sp.win.merge(id, data) }

// MergeFailure implements tasks.MergesFailures.
func (sp *solvePlan) MergeFailure(id string) error { return sp.win.fail(id) }

// write adds task ti to the totals and writes its lines: r is its result,
// or, with ok false, the task failed.
func (sp *solvePlan) write(ctx context.Context, ti int, r *chunkResult, ok bool) error {
	l := sp.lines
	file := sp.pieces[ti].File
	if !ok {
		// The task failed: its lines are still accounted for.
		return sp.failedChunk(ctx, sp.tasks[ti], l)
	}
	t := &sp.totals
	for i, n := range r.Counts {
		t.counts[i] += n
	}
	for i, n := range r.Clues {
		t.clues[i] += n
	}
	for _, gn := range r.Guesses {
		t.guesses[gn[0]] += gn[1]
	}
	for _, h := range r.Hardest {
		h.File = file
		t.hardest = pushHard(t.hardest, h)
	}
	var err error
	l.out.buf, err = r.expand(l.out.buf, sp.params.Out, func(rj chunkReject, reason string) { l.addReject(file, rj.Line, rj.Outcome, reason) })
	if err != nil {
		return fmt.Errorf("result of task %s: %w", sp.tasks[ti].ID, err)
	}
	return l.flush(false)
}

// Report implements tasks.Plan: it writes the lines of --out and the
// rejects of the tasks that Merge did not write (those after a task that
// failed, when the runtime does not tell the plan of failures), in input
// order, completes the outputs and adds up the report.
func (sp *solvePlan) Report(ctx context.Context, sum tasks.Summary) (tasks.Report, error) {
	rep := &SolveReport{
		Rejects: []Reject{}, CluesHistogram: map[string]int{}, GuessesHistogram: map[string]int{}, Hardest: []Hard{},
		failed: len(sum.Failures) > 0,
	}
	for _, in := range sp.params.Inputs {
		rep.Files = append(rep.Files, in.File)
	}
	if err := sp.win.advance(ctx, true); err != nil {
		return nil, err
	}
	for ti, pc := range sp.pieces {
		rep.Puzzles += pc.Items
		if sum.Cached(sp.tasks[ti].ID) {
			rep.CachedPuzzles += pc.Items
		}
	}
	t := &sp.totals
	rep.Unique = t.counts[sudoku.Unique]
	rep.Multiple = t.counts[sudoku.Multiple]
	rep.Unsolvable = t.counts[sudoku.Unsolvable]
	rep.Invalid = t.counts[sudoku.Invalid]
	rep.Malformed = t.counts[sudoku.Malformed]
	for i, n := range t.clues {
		if n > 0 {
			rep.CluesHistogram[strconv.Itoa(i)] = n
		}
	}
	for g, n := range t.guesses {
		rep.GuessesHistogram[strconv.Itoa(g)] = n
	}
	rep.Hardest = append(rep.Hardest, t.hardest...)
	if sum.Elapsed > 0 {
		rep.PuzzlesPerSecond = float64(rep.Puzzles-rep.CachedPuzzles) / sum.Elapsed.Seconds()
	}
	rep.Rejects = append(rep.Rejects, sp.lines.rejects...)
	rep.RejectsTotal, rep.rejectsFile = sp.lines.rejected, sp.params.Rejects
	if err := sp.lines.finish(ctx, sum); err != nil {
		return nil, err
	}
	return rep, nil
}

// failedChunk accounts for the puzzles of a task that failed: each is
// "unsolved" in --out and a reject.
func (sp *solvePlan) failedChunk(ctx context.Context, t tasks.Task, l *corpusLines) error {
	c, err := decodeChunk(ctx, t.Payload, sp.objects)
	if err != nil {
		return fmt.Errorf("task %s: %w", t.ID, err)
	}
	const reason = "not solved: its task failed"
	err = sudoku.ParseBytes(c.Text, c.Line, func(it sudoku.Item) error {
		if sp.params.Out {
			l.out.buf = append(l.out.buf, "unsolved: "+reason+"\n"...)
		}
		l.addReject(c.File, it.Line, "unsolved", reason)
		return nil
	})
	if err != nil {
		return err
	}
	return l.flush(false)
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
	if r.failed {
		b.WriteString("the puzzles of failed tasks are rejects, \"unsolved\"\n")
	}
	row := func(label string, n int) { tasks.Row(&b, label, "%s", tasks.Thousands(uint64(n))) }
	row("puzzles", r.Puzzles)
	row("unique", r.Unique)
	row("multiple", r.Multiple)
	row("unsolvable", r.Unsolvable)
	row("invalid", r.Invalid)
	row("malformed", r.Malformed)
	switch {
	case r.CachedPuzzles > 0 && r.CachedPuzzles == r.Puzzles:
		tasks.Row(&b, "puzzles per second", "none solved now: every task came from the result cache")
	case r.CachedPuzzles > 0:
		tasks.Row(&b, "puzzles per second", "%s (of those solved now; %s came from the result cache)",
			tasks.Thousands(uint64(r.PuzzlesPerSecond+0.5)), tasks.Thousands(uint64(r.CachedPuzzles)))
	default:
		row("puzzles per second", int(r.PuzzlesPerSecond+0.5))
	}
	// The hardest puzzles that needed a guess, locations in one column.
	hard := slices.DeleteFunc(slices.Clone(r.Hardest), func(h Hard) bool { return h.Guesses == 0 })
	width := 0
	for _, h := range hard {
		width = max(width, len(h.File)+1+len(strconv.Itoa(h.Line)))
	}
	switch {
	case len(hard) > 0:
		b.WriteString("  hardest (guesses):\n")
		for _, h := range hard {
			fmt.Fprintf(&b, "    %6d  %-*s  %s\n", h.Guesses, width, h.File+":"+strconv.Itoa(h.Line), h.Puzzle)
		}
	case r.Puzzles > 0:
		b.WriteString("  hardest: none needed a guess\n")
	}
	writeRejects(&b, r.Rejects, r.RejectsTotal, r.rejectsFile)
	return b.String()
}
