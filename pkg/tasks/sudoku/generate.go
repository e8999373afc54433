package sudoku

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
	"github.com/woprlabs/wopr/pkg/tasks"
)

func init() { tasks.Register(Generate{}) }

// Limits of a generation job.
const (
	// MaxGenerate bounds --count: the report holds every puzzle, and its
	// making about 460 bytes each on the coordinator (460 MB for a
	// million, some 4.6 GB for ten million).
	MaxGenerate = 1_000_000
	MinClues    = 17 // no Sudoku with fewer clues has a unique solution
	perTask     = 50
	// maxAttempts is how many random solution grids a puzzle may take:
	// ten times what the hardest reachable request needs (21 clues), so
	// that only a request that random removal (almost) never meets, such
	// as 20 clues, reaches it, and fails its task in about a second.
	maxAttempts = 5000
	// maxRated is how many puzzles a puzzle within a band of ratings may
	// take: far more than the bands up to 8.x need, while a band that
	// random removal does not reach (such as 11.0-12.0) fails its task in
	// about 20 s, naming the nearest rating found.
	maxRated        = 2000
	generateVersion = 3
)

// GenerateParams are the parameters of a "sudoku.generate" job.
type GenerateParams struct {
	Count int    `json:"count"`
	Seed  uint64 `json:"seed"`
	// Clues, if not 0, is the number of clues of every puzzle (with
	// Minimal: at most that many).
	Clues     int  `json:"clues,omitempty"`
	Symmetric bool `json:"symmetric,omitempty"`
	Minimal   bool `json:"minimal,omitempty"`
	// Rating, if set, is the band of Sudoku Explainer ratings of every
	// puzzle (package rating).
	Rating rating.Band `json:"rating,omitzero"`
	Out    bool        `json:"out,omitempty"`
}

// rated tells whether p asks for a band of ratings.
func (p GenerateParams) rated() bool { return p.Rating != rating.Band{} }

// Validate checks the parameters.
func (p GenerateParams) Validate() error {
	if p.Count < 1 || p.Count > MaxGenerate {
		return tasks.Invalid("--count %d: want 1 to %d puzzles", p.Count, MaxGenerate)
	}
	if p.Clues != 0 && (p.Clues < MinClues || p.Clues > 81) {
		return tasks.Invalid("--clues %d: want %d to 81 (no puzzle with fewer than %d clues has a unique solution)", p.Clues, MinClues, MinClues)
	}
	if !p.rated() {
		return nil
	}
	if err := p.Rating.Valid(); err != nil {
		return tasks.Invalid("--rating %s: %v", p.Rating, err)
	}
	if p.Clues != 0 || p.Minimal {
		return tasks.Invalid("--rating: not with --clues or --minimal (the band alone decides which puzzles are kept)")
	}
	return nil
}

// Generate is the "sudoku.generate" kind. Puzzle i is made from its own
// random stream, seeded by (seed, i), so that the puzzles do not depend on
// how the work is split or on how many workers make them.
type Generate struct{}

// Name implements tasks.Kind.
func (Generate) Name() string { return "sudoku.generate" }

// Version implements tasks.Kind.
func (Generate) Version() int { return generateVersion }

type genTask struct {
	GenerateParams
	From int `json:"from"`
	To   int `json:"to"`
}

// Size implements tasks.Sizer: the puzzles cut in tasks of perTask.
func (Generate) Size(raw json.RawMessage) (tasks.Size, error) {
	var p GenerateParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return tasks.Size{}, tasks.Invalid("sudoku.generate parameters: %v", err)
	}
	if err := p.Validate(); err != nil {
		return tasks.Size{}, err
	}
	return tasks.Size{Tasks: (p.Count + perTask - 1) / perTask, By: fmt.Sprintf("--count %d", p.Count)}, nil
}

// Plan implements tasks.Kind.
func (Generate) Plan(ctx context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p GenerateParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("sudoku.generate parameters: %v", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	gp := &genPlan{Results: make(tasks.Results), params: p}
	n := (p.Count + perTask - 1) / perTask
	width := len(strconv.Itoa(n - 1))
	for i := range n {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err() // the job is cancelled
		}
		t := genTask{GenerateParams: p, From: i * perTask, To: min((i+1)*perTask, p.Count)}
		t.Out = false
		payload, _ := json.Marshal(t)
		gp.tasks = append(gp.tasks, tasks.Task{ID: fmt.Sprintf("g%0*d", width, i), Payload: payload})
	}
	return gp, nil
}

type genPlan struct {
	tasks.Results
	params GenerateParams
	tasks  []tasks.Task
}

func (gp *genPlan) Tasks() []tasks.Task { return gp.tasks }

// genResult is a task's puzzles, in index order, with their guess counts
// and, with a band, their ratings in tenths.
type genResult struct {
	Puzzles []string `json:"puzzles"`
	Guesses []int    `json:"guesses"`
	Ratings []int    `json:"ratings,omitempty"`
}

// GenerateReport is the report of a "sudoku.generate" job.
type GenerateReport struct {
	Count     int      `json:"count"`
	Seed      uint64   `json:"seed"`
	Symmetric bool     `json:"symmetric"`
	Minimal   bool     `json:"minimal"`
	Clues     int      `json:"clues,omitempty"`
	Rating    string   `json:"rating,omitempty"` // the band asked for, "4.0-6.4"
	Puzzles   []string `json:"puzzles"`
	// Ratings maps a rating ("4.2") to its number of puzzles, with a band.
	Ratings           map[string]int `json:"ratings,omitempty"`
	CluesHistogram    map[string]int `json:"clues_histogram"`
	GuessesHistogram  map[string]int `json:"guesses_histogram"`
	DuplicatesDropped int            `json:"duplicates_dropped"`
	// PuzzlesPerSecond is the rate of the puzzles this job made; those of
	// tasks answered from the result cache, CachedPuzzles, are not in it
	// (0 when every task was).
	PuzzlesPerSecond float64 `json:"puzzles_per_second"`
	CachedPuzzles    int     `json:"cached_puzzles"`

	// listed: the puzzles go into the text (no --out, and not too many);
	// written: they went to --out; missing: tasks failed.
	listed, written, missing bool
}

// maxListed is the most puzzles the readable report lists itself.
const maxListed = 100

// Report implements tasks.Plan.
func (gp *genPlan) Report(ctx context.Context, sum tasks.Summary) (tasks.Report, error) {
	rep := &GenerateReport{
		Seed: gp.params.Seed, Symmetric: gp.params.Symmetric, Minimal: gp.params.Minimal, Clues: gp.params.Clues,
		Puzzles: []string{}, CluesHistogram: map[string]int{}, GuessesHistogram: map[string]int{},
		written: gp.params.Out, missing: len(sum.Failures) > 0,
	}
	if gp.params.rated() {
		rep.Rating, rep.Ratings = gp.params.Rating.String(), map[string]int{}
	}
	seen := make(map[string]bool, gp.params.Count)
	var out bytes.Buffer
	for _, t := range gp.tasks {
		data, ok := gp.Result(t.ID)
		if !ok {
			continue
		}
		var r genResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
		}
		if sum.Cached(t.ID) {
			rep.CachedPuzzles += len(r.Puzzles)
		}
		for i, pz := range r.Puzzles {
			if seen[pz] {
				rep.DuplicatesDropped++
				continue
			}
			seen[pz] = true
			rep.Puzzles = append(rep.Puzzles, pz)
			rep.CluesHistogram[strconv.Itoa(81-strings.Count(pz, "."))]++
			rep.GuessesHistogram[strconv.Itoa(r.Guesses[i])]++
			if rep.Ratings != nil && i < len(r.Ratings) {
				rep.Ratings[ratingText(r.Ratings[i])]++
			}
			out.WriteString(pz)
			out.WriteByte('\n')
		}
	}
	rep.Count = len(rep.Puzzles)
	rep.listed = !gp.params.Out && rep.Count <= maxListed
	if sum.Elapsed > 0 {
		rep.PuzzlesPerSecond = float64(max(rep.Count-rep.CachedPuzzles, 0)) / sum.Elapsed.Seconds()
	}
	if gp.params.Out {
		if err := sum.PutOutput(ctx, "out", out.Bytes()); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// Text implements tasks.Report.
func (r *GenerateReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d puzzles with a unique solution (seed %d", r.Count, r.Seed)
	if r.Symmetric {
		b.WriteString(", symmetric")
	}
	if r.Minimal {
		b.WriteString(", minimal")
	}
	switch {
	case r.Clues != 0 && r.Minimal:
		fmt.Fprintf(&b, ", at most %d clues", r.Clues)
	case r.Clues != 0:
		fmt.Fprintf(&b, ", %d clues", r.Clues)
	}
	if r.Rating != "" {
		fmt.Fprintf(&b, ", rated %s", r.Rating)
	}
	switch {
	case r.CachedPuzzles > 0 && r.CachedPuzzles >= r.Count:
		b.WriteString("), every one from the result cache\n")
	case r.CachedPuzzles > 0:
		fmt.Fprintf(&b, "), %.0f puzzles/s made now, %d from the result cache\n", r.PuzzlesPerSecond, r.CachedPuzzles)
	default:
		fmt.Fprintf(&b, "), %.0f puzzles/s\n", r.PuzzlesPerSecond)
	}
	if r.missing {
		fmt.Fprintf(&b, "the puzzles of failed tasks (up to %d each) are missing\n", perTask)
	}
	if r.DuplicatesDropped > 0 {
		fmt.Fprintf(&b, "%d duplicates dropped\n", r.DuplicatesDropped)
	}
	if r.Count > 0 {
		b.WriteString("clues:   " + histogram(r.CluesHistogram) + "\n")
		b.WriteString("guesses: " + histogram(r.GuessesHistogram) + "\n")
		if len(r.Ratings) > 0 {
			b.WriteString("ratings: " + ratingHistogram(r.Ratings) + "\n")
		}
	}
	switch {
	case r.listed:
		for _, p := range r.Puzzles {
			b.WriteString(p + "\n")
		}
	case !r.written:
		fmt.Fprintf(&b, "(more than %d puzzles: --out FILE writes them, --json lists them)\n", maxListed)
	}
	return b.String()
}

// ratingHistogram is histogram for keys that are ratings ("4.2").
func ratingHistogram(h map[string]int) string {
	keys := slices.Collect(maps.Keys(h))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(tenths(a), tenths(b)) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s:%d", k, h[k]))
	}
	return strings.Join(parts, " ")
}

// tenths reads a rating written by ratingText.
func tenths(s string) int {
	f, _ := strconv.ParseFloat(s, 64)
	return int(math.Round(10 * f))
}

func histogram(h map[string]int) string {
	keys := make([]int, 0, len(h))
	for k := range h {
		n, _ := strconv.Atoi(k)
		keys = append(keys, n)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d:%d", k, h[strconv.Itoa(k)]))
	}
	return strings.Join(parts, " ")
}

// NewRunner implements tasks.Kind.
func (Generate) NewRunner(tasks.Env) tasks.Runner {
	return &genRunner{solver: sudoku.NewSolver(), rater: rating.NewGenerator(), attempts: maxAttempts, rated: maxRated}
}

type genRunner struct {
	solver   *sudoku.Solver
	rater    *rating.Generator
	attempts int // random grids a puzzle may take
	rated    int // puzzles a puzzle within a band of ratings may take
}

func (r *genRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var t genTask
	if err := json.Unmarshal(payload, &t); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.generate task: %w", err))
	}
	if err := t.Validate(); err != nil || t.From < 0 || t.To > t.Count || t.From >= t.To {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.generate task: bad range %d-%d of %d", t.From, t.To, t.Count))
	}
	var res genResult
	for i := t.From; i < t.To; i++ {
		if err := ctx.Err(); err != nil {
			return tasks.Output{}, err
		}
		rng := rand.New(rand.NewPCG(t.Seed, uint64(i)))
		if t.rated() {
			p, err := r.rater.Generate(ctx, rng, rating.GenerateOptions{Band: t.Rating, Symmetric: t.Symmetric, Attempts: r.rated})
			if err != nil {
				if ctx.Err() != nil {
					return tasks.Output{}, ctx.Err()
				}
				return tasks.Output{}, tasks.Permanent(fmt.Errorf("puzzle %d: %w", i, err))
			}
			_, guesses := r.solver.Solve(&p.Puzzle, 2)
			res.Puzzles = append(res.Puzzles, p.Puzzle.String())
			res.Guesses = append(res.Guesses, guesses)
			res.Ratings = append(res.Ratings, p.Result.Rating)
			continue
		}
		g, guesses, err := r.generate(rng, t.GenerateParams)
		if err != nil {
			return tasks.Output{}, tasks.Permanent(fmt.Errorf("puzzle %d: %w", i, err))
		}
		res.Puzzles = append(res.Puzzles, g.String())
		res.Guesses = append(res.Guesses, guesses)
	}
	data, err := json.Marshal(res)
	return tasks.Output{Data: data}, err
}

// unique reports whether g has exactly one solution.
func (r *genRunner) unique(g sudoku.Grid) bool {
	n, _ := r.solver.Solve(&g, 2)
	return n == 1
}

// generate makes one puzzle: a random solution grid, then clues removed in
// random order (in 180-degree pairs when symmetric: the centre cell is its
// own partner) as long as the solution stays unique. One full pass leaves
// a minimal puzzle (if removing a clue breaks uniqueness, it still does
// once other clues are gone); with pairs it leaves one where no pair can
// go, which is minimal for about one grid in 70. With Clues (and not
// Minimal) no removal goes below Clues, and the pass ends there. A grid
// that does not give what p asks for is replaced by the next.
func (r *genRunner) generate(rng *rand.Rand, p GenerateParams) (sudoku.Grid, int, error) {
	exact := p.Clues != 0 && !p.Minimal
	for range r.attempts {
		g := randomSolution(rng)
		clues := 81
		for _, c := range rng.Perm(81) {
			if exact && clues == p.Clues {
				break
			}
			m := 80 - c
			if p.Symmetric && m < c {
				continue // handled with its partner
			}
			if g[c] == 0 {
				continue
			}
			removed := 1
			if p.Symmetric && m != c {
				removed = 2
			}
			if exact && clues-removed < p.Clues {
				continue // a pair one clue above the target: only the centre fits
			}
			saved, savedM := g[c], g[m]
			g[c] = 0
			if removed == 2 {
				g[m] = 0
			}
			if r.unique(g) {
				clues -= removed
				continue
			}
			g[c], g[m] = saved, savedM
		}
		if exact && clues != p.Clues || p.Clues != 0 && clues > p.Clues {
			continue // not reachable from this grid: try another
		}
		if p.Minimal && p.Symmetric && !r.minimal(g) {
			continue
		}
		_, guesses := r.solver.Solve(&g, 2)
		return g, guesses, nil
	}
	return sudoku.Grid{}, 0, fmt.Errorf("no %s in %d random solution grids%s", p.describe(), r.attempts, p.hint())
}

// describe names the puzzles p asks for.
func (p GenerateParams) describe() string {
	var what []string
	if p.Symmetric {
		what = append(what, "symmetric")
	}
	if p.Minimal {
		what = append(what, "minimal")
	}
	s := strings.Join(append(what, "puzzle"), " ")
	switch {
	case p.Clues != 0 && p.Minimal:
		s += fmt.Sprintf(" with at most %d clues", p.Clues)
	case p.Clues != 0:
		s += fmt.Sprintf(" with %d clues", p.Clues)
	}
	return s
}

// hint says why a request with few clues fails.
func (p GenerateParams) hint() string {
	if p.Clues != 0 && p.Clues < 22 {
		return " (removing clues at random seldom ends below 22; puzzles with fewer are rare)"
	}
	return ""
}

// minimal reports whether removing any single clue of g breaks uniqueness.
func (r *genRunner) minimal(g sudoku.Grid) bool {
	for c := range g {
		if g[c] == 0 {
			continue
		}
		d := g[c]
		g[c] = 0
		u := r.unique(g)
		g[c] = d
		if u {
			return false
		}
	}
	return true
}

// randomSolution fills an empty grid by backtracking over the cells in
// order, trying the digits of each cell in a random order.
func randomSolution(rng *rand.Rand) sudoku.Grid {
	var (
		g                 sudoku.Grid
		rows, cols, boxes [9]uint16
		digits            [81][9]uint8
	)
	for c := range digits {
		for i := range 9 {
			digits[c][i] = uint8(i + 1)
		}
		rng.Shuffle(9, func(i, j int) { digits[c][i], digits[c][j] = digits[c][j], digits[c][i] })
	}
	var fill func(c int) bool
	fill = func(c int) bool {
		if c == 81 {
			return true
		}
		r, k := c/9, c%9
		b := r/3*3 + k/3
		for _, d := range digits[c] {
			bit := uint16(1) << d
			if (rows[r]|cols[k]|boxes[b])&bit != 0 {
				continue
			}
			rows[r] |= bit
			cols[k] |= bit
			boxes[b] |= bit
			g[c] = d
			if fill(c + 1) {
				return true
			}
			rows[r] &^= bit
			cols[k] &^= bit
			boxes[b] &^= bit
		}
		g[c] = 0
		return false
	}
	fill(0)
	return g
}
