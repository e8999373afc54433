package sudoku

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
	"github.com/woprlabs/wopr/pkg/tasks"
)

func init() { tasks.Register(Rate{}) }

// Rate is the "sudoku.rate" kind: it rates every puzzle of corpora on the
// Sudoku Explainer scale with package rating. Its inputs are cut into
// tasks as those of "sudoku.solve" are, and its parameters are the same
// (SolveParams). --out gets "<rating> <puzzle> <guess difficulty>" a
// puzzle in input order: the rating as "4.2", or "?" for a puzzle the
// techniques do not solve, then the puzzle, then the guess-based
// difficulty (sudoku.Solver.GuessDifficulty, two decimals); or the outcome
// word and the reason for a puzzle not uniquely solved (also a reject, as
// in "sudoku.solve"). The rating comes first and the puzzle second, so a
// reader of "rating puzzle" lines reads these.
type Rate struct{}

// Name implements tasks.Kind.
func (Rate) Name() string { return "sudoku.rate" }

// maxRateChunk bounds the chunk that SubmitCorpus chooses for a rating
// job: rating runs at hundreds to thousands of puzzles/s up to 6.0 and
// takes up to seconds a puzzle with forcing chains (BenchmarkRate in
// pkg/engine/sudoku/rating), solving at about 125,000, so its tasks are
// small.
const maxRateChunk = 100

// Version implements tasks.Kind.
func (Rate) Version() int { return 2 }

// rated is one puzzle in a task's result.
type rated struct {
	Line   int    `json:"l"`
	Puzzle string `json:"p"`
	Rating int    `json:"r,omitempty"` // tenths; 0 with Solved false: unrated
	Solved bool   `json:"s,omitempty"`
	Used   uint64 `json:"u,omitempty"`
	// Guess is the guess-based difficulty, rounded to two decimals.
	Guess   float64 `json:"g,omitempty"`
	Outcome string  `json:"o,omitempty"` // not unique: the outcome, and Reason
	Reason  string  `json:"why,omitempty"`
}

// Plan implements tasks.Kind: the tasks of "sudoku.solve" for the same
// parameters.
func (Rate) Plan(ctx context.Context, raw json.RawMessage, env tasks.PlanEnv) (tasks.Plan, error) {
	sp, err := planCorpus(ctx, raw, env)
	if err != nil {
		return nil, err
	}
	rp := &ratePlan{sp: sp, lines: sp.lines,
		rep: &RateReport{Ratings: map[string]int{}, Techniques: map[string]int{}, GuessDifficulty: map[string]float64{},
			Hardest: []RatedPuzzle{}, Rejects: []Reject{}},
		guessSum: map[string]float64{}}
	rp.win = newWindow(sp.tasks, env.Result, func(ti int, data []byte) ([]rated, error) {
		var rs []rated
		if err := json.Unmarshal(data, &rs); err != nil {
			return nil, err
		}
		if len(rs) != sp.pieces[ti].Items {
			return nil, fmt.Errorf("%d puzzles, want %d", len(rs), sp.pieces[ti].Items)
		}
		return rs, nil
	}, rp.write)
	return rp, nil
}

// ratePlan merges as solvePlan does, in input order (window): the results
// of the tasks written are in the report and the outputs.
type ratePlan struct {
	sp      *solvePlan
	win     *window[[]rated]
	lines   *corpusLines
	rep     *RateReport // of the tasks written
	used    [64]int
	hardest []hardRated
	// guessSum sums the guess difficulties by rating ("?": unrated).
	guessSum map[string]float64
}

type hardRated struct {
	RatedPuzzle
	tenths int
}

func (rp *ratePlan) Tasks() []tasks.Task { return rp.sp.tasks }

func (rp *ratePlan) Merge(id string, data []byte) error { return rp.win.merge(id, data) }

// MergeFailure implements tasks.MergesFailures.
func (rp *ratePlan) MergeFailure(id string) error { return rp.win.fail(id) }

// write adds task ti to the report and writes its lines: rs is its
// result, or, with ok false, the task failed.
func (rp *ratePlan) write(ctx context.Context, ti int, rs []rated, ok bool) error {
	rep, out := rp.rep, rp.lines
	file := rp.sp.pieces[ti].File
	if !ok {
		return rp.sp.failedChunk(ctx, rp.sp.tasks[ti], out)
	}
	for _, r := range rs {
		switch {
		case r.Outcome != "":
			out.addReject(file, r.Line, r.Outcome, r.Reason)
			if out.out.want {
				out.out.buf = fmt.Appendf(out.out.buf, "%s: %s\n", r.Outcome, r.Reason)
			}
			continue
		case !r.Solved:
			rep.Unrated++
			rp.guessSum["?"] += r.Guess
			if out.out.want {
				out.out.buf = fmt.Appendf(out.out.buf, "? %s %.2f\n", r.Puzzle, r.Guess)
			}
		default:
			rep.Rated++
			rep.Ratings[ratingText(r.Rating)]++
			rp.guessSum[ratingText(r.Rating)] += r.Guess
			if out.out.want {
				out.out.buf = fmt.Appendf(out.out.buf, "%s %s %.2f\n", ratingText(r.Rating), r.Puzzle, r.Guess)
			}
			h := hardRated{RatedPuzzle{file, r.Line, r.Puzzle, float64(r.Rating) / 10, r.Guess}, r.Rating}
			i, _ := slices.BinarySearchFunc(rp.hardest, r.Rating, func(e hardRated, t int) int {
				if e.tenths >= t {
					return -1
				}
				return 1
			})
			if i < hardestKept {
				rp.hardest = slices.Insert(rp.hardest, i, h)[:min(len(rp.hardest)+1, hardestKept)]
			}
		}
		for t := range rating.Techniques() {
			if r.Used>>t&1 != 0 {
				rp.used[t]++
			}
		}
	}
	return out.flush(false)
}

// RateReport is the report of a "sudoku.rate" job.
type RateReport struct {
	Puzzles int `json:"puzzles"`
	// Rated is the number of puzzles that the techniques solved.
	Rated int `json:"rated"`
	// Unrated are unique puzzles the techniques do not solve.
	Unrated int `json:"unrated"`
	// Ratings maps a rating ("4.2") to its number of puzzles.
	Ratings map[string]int `json:"ratings"`
	// Techniques maps a technique to the number of puzzles that used it.
	Techniques map[string]int `json:"techniques"`
	// GuessDifficulty maps a rating to the mean guess-based difficulty
	// of its puzzles (sudoku.Solver.GuessDifficulty: mean ln(1+guesses)
	// over random relabellings); "?" is that of the unrated puzzles.
	GuessDifficulty map[string]float64 `json:"guess_difficulty"`
	Hardest         []RatedPuzzle      `json:"hardest"`
	// Rejects are the first rejectsKept puzzles not uniquely solved, in
	// input order, of RejectsTotal (--rejects gets every one).
	Rejects      []Reject `json:"rejects"`
	RejectsTotal int      `json:"rejects_total"`
	Files        []string `json:"files"`

	rejectsFile bool // --rejects gets every reject
}

// RatedPuzzle is one of the hardest puzzles of a report.
type RatedPuzzle struct {
	File   string  `json:"file"`
	Line   int     `json:"line"`
	Puzzle string  `json:"puzzle"`
	Rating float64 `json:"rating"`
	// GuessDifficulty is the puzzle's guess-based difficulty.
	GuessDifficulty float64 `json:"guess_difficulty"`
}

func ratingText(tenths int) string { return strconv.Itoa(tenths/10) + "." + strconv.Itoa(tenths%10) }

func (rp *ratePlan) Report(ctx context.Context, sum tasks.Summary) (tasks.Report, error) {
	if err := rp.win.advance(ctx, true); err != nil {
		return nil, err
	}
	rep := rp.rep
	for _, in := range rp.sp.params.Inputs {
		rep.Files = append(rep.Files, in.File)
	}
	for _, pc := range rp.sp.pieces {
		rep.Puzzles += pc.Items
	}
	for t, name := range rating.Techniques() {
		if rp.used[t] > 0 {
			rep.Techniques[name] = rp.used[t]
		}
	}
	for _, h := range rp.hardest {
		rep.Hardest = append(rep.Hardest, h.RatedPuzzle)
	}
	for k, sum := range rp.guessSum {
		n := rep.Unrated
		if k != "?" {
			n = rep.Ratings[k]
		}
		rep.GuessDifficulty[k] = math.Round(100*sum/float64(n)) / 100
	}
	rep.Rejects = append(rep.Rejects, rp.lines.rejects...)
	rep.RejectsTotal, rep.rejectsFile = rp.lines.rejected, rp.sp.params.Rejects
	if err := rp.lines.finish(ctx, sum); err != nil {
		return nil, err
	}
	return rep, nil
}

// Text implements tasks.Report.
func (r *RateReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sudoku ratings (Sudoku Explainer scale): %s\n", strings.Join(r.Files, ", "))
	row := func(label string, n int) { tasks.Row(&b, label, "%s", tasks.Thousands(uint64(n))) }
	row("puzzles", r.Puzzles)
	row("rated", r.Rated)
	row("unrated", r.Unrated) // beyond the rater: nested forcing chains
	row("rejects", r.RejectsTotal)
	keys := make([]string, 0, len(r.Ratings))
	for k := range r.Ratings {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return int(10*x) - int(10*y)
	})
	if len(keys) > 0 {
		b.WriteString("  ratings (puzzles, mean guess difficulty):\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "    %5s  %7s  %5.2f\n", k, tasks.Thousands(uint64(r.Ratings[k])), r.GuessDifficulty[k])
		}
		if r.Unrated > 0 {
			fmt.Fprintf(&b, "    %5s  %7s  %5.2f\n", "?", tasks.Thousands(uint64(r.Unrated)), r.GuessDifficulty["?"])
		}
	}
	if len(r.Techniques) > 0 {
		b.WriteString("  techniques (puzzles that used each):\n")
		for _, t := range rating.InOrder() {
			name := t.String()
			if n, ok := r.Techniques[name]; ok {
				fmt.Fprintf(&b, "    %-28s %s\n", name, tasks.Thousands(uint64(n)))
			}
		}
	}
	if len(r.Hardest) > 0 {
		b.WriteString("  hardest (rating, guess difficulty):\n")
		for _, h := range r.Hardest {
			fmt.Fprintf(&b, "    %4.1f  %4.2f  %s:%d  %s\n", h.Rating, h.GuessDifficulty, h.File, h.Line, h.Puzzle)
		}
	}
	writeRejects(&b, r.Rejects, r.RejectsTotal, r.rejectsFile)
	return b.String()
}

// NewRunner implements tasks.Kind.
func (Rate) NewRunner(env tasks.Env) tasks.Runner {
	return &rateRunner{objects: env.Objects, ahead: processReadAhead(env), solver: sudoku.NewSolver(), rater: rating.NewSolver()}
}

type rateRunner struct {
	objects tasks.Objects
	ahead   *readAhead
	solver  *sudoku.Solver
	rater   *rating.Solver
}

func (r *rateRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	c, wait, err := r.ahead.read(ctx, payload, r.objects)
	defer wait()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("sudoku.rate task: %w", err))
	}
	rs := []rated{}
	err = sudoku.ParseBytes(c.Text, c.Line, func(it sudoku.Item) error {
		if len(rs)&63 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if it.Err != nil {
			rs = append(rs, rated{Line: it.Line, Outcome: sudoku.Malformed.String(), Reason: oneLine(it.Err.Error())})
			return nil
		}
		sr := r.solver.Classify(it.Grid)
		if sr.Outcome != sudoku.Unique {
			rs = append(rs, rated{Line: it.Line, Outcome: sr.Outcome.String(), Reason: answerOf(&sr)})
			return nil
		}
		res, err := r.rater.RateContext(ctx, it.Grid)
		if err != nil {
			return err // stopped: the task runs again
		}
		guess := math.Round(100*r.solver.GuessDifficulty(&it.Grid)) / 100
		rs = append(rs, rated{Line: it.Line, Puzzle: it.Grid.String(), Rating: res.Rating, Solved: res.Solved, Used: res.Used, Guess: guess})
		return nil
	})
	if err != nil {
		return tasks.Output{}, err
	}
	data, err := json.Marshal(rs)
	return tasks.Output{Data: data}, err
}
