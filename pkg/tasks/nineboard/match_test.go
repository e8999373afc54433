package nineboard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/tasks"
)

func TestValidate(t *testing.T) {
	ok := MatchParams{X: "random", O: "engine:depth=2", Games: 10, Variant: "first-triple"}
	if _, _, _, err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []MatchParams{
		{X: "rand", O: "random", Games: 1, Variant: "first-triple"},
		{X: "random", O: "engine:depth=99", Games: 1, Variant: "first-triple"},
		{X: "random", O: "random", Games: 0, Variant: "first-triple"},
		{X: "random", O: "random", Games: MaxGames + 1, Variant: "first-triple"},
		{X: "random", O: "random", Games: 1, Variant: "classic"},
		{X: "random", O: "random", Games: 1, Variant: "ultimate", GamesPerTask: -1},
	} {
		if _, _, _, err := p.Validate(); err == nil {
			t.Errorf("%+v: valid, want an error", p)
		}
	}
}

// runMatch plans a match and runs its tasks on fresh runners in reverse
// order (results merge in any order), then reports.
func runMatch(t *testing.T, p MatchParams) *MatchReport {
	t.Helper()
	raw, _ := json.Marshal(p)
	plan, err := Match{}.Plan(context.Background(), raw, tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	ts := plan.Tasks()
	for i := len(ts) - 1; i >= 0; i-- {
		out, err := Match{}.NewRunner(tasks.Env{}).Run(context.Background(), ts[i].Payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := plan.Merge(ts[i].ID, out.Data); err != nil {
			t.Fatal(err)
		}
		var r matchResult
		if err := json.Unmarshal(out.Data, &r); err != nil {
			t.Fatal(err)
		}
		replay(t, p.Variant, r)
	}
	rep, err := plan.Report(context.Background(), tasks.Summary{Tasks: len(ts)})
	if err != nil {
		t.Fatal(err)
	}
	return rep.(*MatchReport)
}

// replay checks every recorded game: legal moves, played to its end, and
// the result counted as the board says.
func replay(t *testing.T, variant string, r matchResult) {
	t.Helper()
	v, _ := nineboard.ParseVariant(variant)
	var count [4]int
	plies := 0
	for _, g := range r.Games {
		b := nineboard.NewBoard(v)
		for _, m := range strings.Fields(g) {
			var bd, c int
			if _, err := fmt.Sscanf(m, "%d:%d", &bd, &c); err != nil {
				t.Fatalf("game %q: move %q: %v", g, m, err)
			}
			mv := nineboard.NewMove(bd-1, c-1)
			if !b.Legal(mv) {
				t.Fatalf("game %q: %s is illegal in %s", g, m, b)
			}
			b.Make(mv)
		}
		if b.Result() == nineboard.Ongoing {
			t.Fatalf("game %q does not end", g)
		}
		count[b.Result()]++
		plies += b.Ply()
	}
	if count[nineboard.XWin] != r.XWins || count[nineboard.OWin] != r.OWins || count[nineboard.Draw] != r.Draws || plies != r.Plies {
		t.Errorf("replayed %v and %d plies; result says x %d o %d draws %d plies %d", count, plies, r.XWins, r.OWins, r.Draws, r.Plies)
	}
}

// deterministic drops the figures that depend on the machine.
func deterministic(r MatchReport) MatchReport {
	r.X.MillisPerMove, r.O.MillisPerMove = 0, 0
	return r
}

// The same seed gives the same games however they are split; another seed
// gives other games.
func TestMatchReproducible(t *testing.T) {
	for _, v := range []string{"first-triple", "ultimate"} {
		p := MatchParams{X: "engine:depth=2", O: "random", Games: 12, Seed: 7, Variant: v}
		ref := deterministic(*runMatch(t, MatchParams{X: p.X, O: p.O, Games: p.Games, Seed: p.Seed, Variant: v, GamesPerTask: 12}))
		for _, per := range []int{0, 1, 5} {
			p.GamesPerTask = per
			if got := deterministic(*runMatch(t, p)); fmt.Sprint(got) != fmt.Sprint(ref) {
				t.Errorf("%s, %d games per task:\ngot  %+v\nwant %+v", v, per, got, ref)
			}
		}
		p.Seed = 8
		if got := runMatch(t, p); got.Digest == ref.Digest {
			t.Errorf("%s: seeds 7 and 8 play the same games (digest %s)", v, got.Digest)
		}
		if ref.Played != 12 || ref.XWins+ref.OWins+ref.Draws != 12 || ref.X.Moves == 0 || ref.X.NodesPerMove == 0 || ref.O.Nodes != 0 {
			t.Errorf("%s report %+v", v, ref)
		}
	}
}

// The engine at depth 4 beats a random player from both seats, in both
// variants.
func TestEngineBeatsRandom(t *testing.T) {
	for _, v := range []string{"first-triple", "ultimate"} {
		x := runMatch(t, MatchParams{X: "engine:depth=4", O: "random", Games: 20, Seed: 1, Variant: v})
		o := runMatch(t, MatchParams{X: "random", O: "engine:depth=4", Games: 20, Seed: 1, Variant: v})
		if x.XWins < 19 || o.OWins < 19 {
			t.Errorf("%s: engine as x won %d/20, as o %d/20; want at least 19", v, x.XWins, o.OWins)
		}
		t.Logf("%s: engine as x %d/%d/%d, as o %d/%d/%d (w/d/l); lengths %.1f, %.1f; nodes/move %.0f, %.0f",
			v, x.X.Wins, x.X.Draws, x.X.Losses, o.O.Wins, o.O.Draws, o.O.Losses, x.AverageLength, o.AverageLength, x.X.NodesPerMove, o.O.NodesPerMove)
	}
}

// A report with a failed task says so and counts only the games played.
func TestMatchReportIncomplete(t *testing.T) {
	raw, _ := json.Marshal(MatchParams{X: "random", O: "random", Games: 4, GamesPerTask: 2, Variant: "first-triple"})
	plan, err := Match{}.Plan(context.Background(), raw, tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	ts := plan.Tasks()
	out, err := Match{}.NewRunner(tasks.Env{}).Run(context.Background(), ts[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Merge(ts[0].ID, out.Data); err != nil {
		t.Fatal(err)
	}
	fail := []tasks.Failure{{Task: ts[1].ID, Reason: "test"}}
	rep, err := plan.Report(context.Background(), tasks.Summary{Tasks: 2, Failures: fail})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.(*MatchReport)
	if r.Played != 2 || !strings.Contains(r.Text(), "2 of 4 games played") {
		t.Errorf("report %+v\n%s", r, r.Text())
	}
}

// Games with a player on a time per move depend on the machine: their
// tasks stay out of the coordinator's cache; depth-limited and random
// players' games do not.
func TestMatchVolatile(t *testing.T) {
	for _, c := range []struct {
		x, o     string
		volatile bool
	}{
		{"random", "random", false},
		{"engine:depth=3", "random", false},
		{"engine:time=50ms", "random", true},
		{"random", "engine:time=1s", true},
	} {
		raw, err := json.Marshal(MatchParams{X: c.x, O: c.o, Games: 4, GamesPerTask: 2, Variant: "first-triple"})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := Match{}.Plan(context.Background(), raw, tasks.PlanEnv{})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range plan.Tasks() {
			if task.Volatile != c.volatile {
				t.Errorf("%s vs %s: task %s volatile %v, want %v", c.x, c.o, task.ID, task.Volatile, c.volatile)
			}
		}
	}
}
