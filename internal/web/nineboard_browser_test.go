package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserNineboard plays nine-board games to their end, taking the
// first empty cell of the first board it may play in: first-triple
// against the default engine, then ultimate against a shallow one, whose
// won boards the page marks. A move in the wrong board is refused.
func TestBrowserNineboard(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /nineboard", chromedp.Navigate(b.url+"/nineboard"), chromedp.WaitVisible(chromedp.CSS("#board .mini.playable")))
	waitFor(b, "the first move", `document.querySelector("#status").textContent === "Your move (X)"`)
	if n := eval[int](b, `document.querySelectorAll("#board .mini.playable").length`); n != 1 {
		t.Errorf("%d boards highlighted after the referee's move and wopr's reply, want 1", n)
	}
	if note := b.text("#note"); !strings.Contains(note, "The referee made X's first move at random") {
		t.Errorf("note %q: want the referee's move named", note)
	}
	b.screenshot("new-game")

	// A cell of a board that is not the one to play in.
	before := boardText(b)
	b.run("play in a wrong board", chromedp.Click(chromedp.CSS("#board .mini:not(.playable) .cell:not(.taken)")))
	waitFor(b, "the refusal", `document.querySelector("#error").textContent !== ""`)
	if got := b.text("#error"); !strings.HasPrefix(got, "wrong board: ") {
		t.Errorf("error %q, want wrong board", got)
	}
	if got := boardText(b); got != before {
		t.Errorf("board %q after the refused move, want %q", got, before)
	}
	b.screenshot("wrong-board")

	// The evaluation: a line from a playable board, its moves numbered on
	// the boards.
	b.run("evaluate", chromedp.Click(chromedp.CSS("#analyse")))
	waitFor(b, "the evaluation", `document.querySelectorAll("#pv li").length > 0`)
	if got := b.text("#eval-summary"); !strings.Contains(got, "depth 10") {
		t.Errorf("evaluation %q: want the engine's search, 10 plies deep", got)
	}
	if n := eval[int](b, `document.querySelectorAll("#board .mini.playable .cell.best").length`); n != 1 {
		t.Errorf("%d best moves marked in the playable board, want 1", n)
	}
	b.screenshot("evaluation")

	playToTheEnd := func() string {
		for range 41 {
			if eval[string](b, `document.querySelector("#status").dataset.outcome`) != "" {
				break
			}
			clickAndWait(b, "#board .mini.playable .cell:not(.taken)")
		}
		outcome := eval[string](b, `document.querySelector("#status").dataset.outcome`)
		if outcome == "" {
			t.Fatalf("the game did not end in 41 moves; status %q", b.text("#status"))
		}
		if n := eval[int](b, `document.querySelectorAll("#board .mini.playable").length`); n != 0 {
			t.Errorf("%d boards highlighted after the end, want none", n)
		}
		return outcome
	}
	outcome := playToTheEnd()
	status := b.text("#status")
	if want := map[string]string{"win": "You win!", "loss": "wopr wins.", "draw": "Draw."}[outcome]; status != want {
		t.Errorf("status %q, want %q", status, want)
	}
	if outcome != "draw" {
		if n := eval[int](b, `document.querySelectorAll("#board .cell.win").length`); n < 3 {
			t.Errorf("%d cells of the winning line highlighted, want 3", n)
		}
	}
	counter := map[string]string{"win": "#wins", "loss": "#losses", "draw": "#draws"}[outcome]
	if got := b.text(counter); got != "1" {
		t.Errorf("%s shows %q after the game, want 1", counter, got)
	}
	b.screenshot("first-triple-over")

	b.run("choose ultimate", chromedp.SetValue(chromedp.CSS("#variant"), "ultimate"),
		chromedp.SetValue(chromedp.CSS("#opponent"), "engine:depth=2"), chromedp.Click(chromedp.CSS("#new-game")))
	waitFor(b, "the ultimate game", `document.querySelectorAll("#board .cell.taken").length === 0 && `+idle)
	if n := eval[int](b, `document.querySelectorAll("#board .mini.playable").length`); n != 9 {
		t.Errorf("%d boards highlighted for the first move of ultimate, want 9", n)
	}
	playToTheEnd()
	if n := eval[int](b, `document.querySelectorAll("#board .mini.decided").length`); n == 0 {
		t.Error("no board marked won at the end of an ultimate game")
	}
	if got := b.text("#tally-name"); got != "(ultimate)" {
		t.Errorf("score of %q, want (ultimate)", got)
	}
	b.screenshot("ultimate-over")
}
