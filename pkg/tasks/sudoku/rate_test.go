package sudoku

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// A rate job writes one line of --out a puzzle in input order whatever
// the chunking, rejects what is not uniquely solved, and counts ratings
// and techniques.
func TestRateJob(t *testing.T) {
	corpus := "# c\n" +
		"..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n" + // singles
		strings.Repeat(".", 81) + "\n" + // multiple
		"bad line\n" +
		"570060003030005060601007000053000001000080000900000270000800402080100030200040019\n" // 2.5 in se-rated-dev
	want := "1.2 ..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.. 0.00\n"
	var outs []string
	for _, size := range []int{1, 3, 100} {
		objs := memObjects{"in": []byte(corpus)}
		raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: size, Out: true, Rejects: true})
		plan, err := Rate{}.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs, Outputs: objs})
		if err != nil {
			t.Fatal(err)
		}
		rep := taskstest.RunPlan(t, Rate{}, plan, tasks.Env{Objects: objs}, tasks.Summary{Job: "j", Outputs: objs}).(*RateReport)
		if rep.Puzzles != 4 || rep.Rated != 2 || len(rep.Rejects) != 2 || rep.RejectsTotal != 2 {
			t.Fatalf("chunk %d: got %d puzzles, %d rated, %d rejects; want 4, 2, 2", size, rep.Puzzles, rep.Rated, len(rep.Rejects))
		}
		if rep.Ratings["2.5"] != 1 || rep.Ratings["1.2"] != 1 {
			t.Errorf("chunk %d: ratings %v, want one 1.2 and one 2.5", size, rep.Ratings)
		}
		if rep.Techniques["direct hidden triple"] != 1 || rep.Techniques["hidden single"] != 2 {
			t.Errorf("chunk %d: techniques %v", size, rep.Techniques)
		}
		if len(rep.Hardest) != 2 || rep.Hardest[0].Line != 5 || rep.Hardest[0].Rating != 2.5 {
			t.Errorf("chunk %d: hardest %+v, want line 5 (2.5) first", size, rep.Hardest)
		}
		g, _ := sudoku.ParseLine(rep.Hardest[0].Puzzle)
		guess := math.Round(100*sudoku.NewSolver().GuessDifficulty(&g)) / 100
		if rep.Hardest[0].GuessDifficulty != guess || rep.GuessDifficulty["2.5"] != guess || rep.GuessDifficulty["1.2"] != 0 {
			t.Errorf("chunk %d: guess difficulty %v of the hardest, by rating %v; want %v for 2.5, 0 for 1.2", size, rep.Hardest[0].GuessDifficulty, rep.GuessDifficulty, guess)
		}
		if !strings.Contains(string(objs["out"]), fmt.Sprintf(" %.2f\n", guess)) {
			t.Errorf("chunk %d: out lacks the guess difficulty %.2f:\n%s", size, guess, objs["out"])
		}
		out := string(objs["out"])
		if lines := strings.Split(out, "\n"); len(lines) != 5 || lines[0]+"\n" != want ||
			!strings.HasPrefix(lines[1], "multiple: ") || !strings.HasPrefix(lines[2], "malformed: ") || !strings.HasPrefix(lines[3], "2.5 ") {
			t.Errorf("chunk %d: out\n%s", size, out)
		}
		outs = append(outs, out)
		if !strings.Contains(rep.Text(), "direct hidden triple") {
			t.Errorf("report text lacks the techniques:\n%s", rep.Text())
		}
	}
	for _, o := range outs[1:] {
		if o != outs[0] {
			t.Errorf("outputs differ with the chunk size:\n%s\n%s", outs[0], o)
		}
	}
}
