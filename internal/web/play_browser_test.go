package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// waitFor polls a JavaScript condition until it holds.
func waitFor(b *browser, what, cond string) {
	b.t.Helper()
	b.run("wait for "+what, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(30*time.Second)))
}

// idle is true when the page has no request of a move in flight.
const idle = `document.querySelector("#board").getAttribute("aria-busy") === "false"`

// taken counts the stones on the page's board.
func taken(b *browser) int {
	b.t.Helper()
	return eval[int](b, `document.querySelectorAll("#board .cell.taken").length`)
}

// boardText is the page's board, a character per cell.
func boardText(b *browser) string {
	b.t.Helper()
	return eval[string](b, `[...document.querySelectorAll("#board .cell")].map(c => c.textContent || ".").join("")`)
}

// clickAndWait clicks the cell sel and waits for the page to show the
// server's answer: the person's stone and the engine's reply, or the end.
func clickAndWait(b *browser, sel string) {
	b.t.Helper()
	before := taken(b)
	b.run("play "+sel, chromedp.Click(chromedp.CSS(sel)))
	waitFor(b, "the answer to "+sel, fmt.Sprintf(`%s && (document.querySelectorAll("#board .cell.taken").length > %d || document.querySelector("#error").textContent !== "")`, idle, before))
	if msg := b.text("#error"); msg != "" {
		b.t.Fatalf("play %s: refused: %s", sel, msg)
	}
}

// TestBrowserPlayPerfect plays whole 3x3 games against the perfect player,
// taking the first empty cell each time, and does not win; the score
// survives a reload; the keyboard plays.
func TestBrowserPlayPerfect(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /play", chromedp.Navigate(b.url+"/play"), chromedp.WaitVisible(chromedp.CSS("#board .cell")))
	waitFor(b, "the first move", `document.querySelector("#status").textContent === "Your move (X)"`)
	if n := eval[int](b, `document.querySelectorAll("#board .cell").length`); n != 9 {
		t.Fatalf("%d cells on the board, want 9", n)
	}
	b.screenshot("new-game")
	for range 5 {
		if eval[string](b, `document.querySelector("#status").dataset.outcome`) != "" {
			break
		}
		clickAndWait(b, "#board .cell:not(.taken)")
	}
	outcome := eval[string](b, `document.querySelector("#status").dataset.outcome`)
	status := b.text("#status")
	if outcome == "" || outcome == "win" {
		t.Fatalf("after the game: outcome %q, status %q: want the game over, not won", outcome, status)
	}
	want := map[string]string{"loss": "wopr wins.", "draw": "Draw."}[outcome]
	if status != want {
		t.Errorf("status %q, want %q", status, want)
	}
	if outcome == "loss" {
		if n := eval[int](b, `document.querySelectorAll("#board .cell.win.o").length`); n != 3 {
			t.Errorf("%d of O's cells highlighted as the winning line, want 3", n)
		}
	}
	b.screenshot("game-over")
	counter := map[string]string{"loss": "#losses", "draw": "#draws"}[outcome]
	if got := b.text(counter); got != "1" {
		t.Errorf("%s shows %q after the game, want 1", counter, got)
	}

	// The score survives a reload, which shows the same game.
	board := boardText(b)
	b.run("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#board .cell.taken")))
	waitFor(b, "the restored game", `document.querySelector("#status").dataset.outcome !== ""`)
	if got := b.text(counter); got != "1" {
		t.Errorf("%s shows %q after a reload, want 1 (kept, and counted once)", counter, got)
	}
	if got := boardText(b); got != board {
		t.Errorf("board %q after a reload, want %q", got, board)
	}

	// A new game with the key n; the arrow keys and Enter play 0,0 (the
	// focus starts in the centre).
	b.run("new game", chromedp.KeyEvent("n"))
	waitFor(b, "the new game", `document.querySelectorAll("#board .cell.taken").length === 0 && `+idle)
	b.run("focus", chromedp.Focus(chromedp.CSS(`#board .cell[tabindex="0"]`)))
	b.run("keys", chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.Enter))
	waitFor(b, "the reply", `document.querySelectorAll("#board .cell.taken").length === 2 && `+idle)
	if got := boardText(b); got[0] != 'X' {
		t.Errorf("board %q after ArrowUp, ArrowLeft, Enter: want X in 0,0", got)
	}
	// Evaluate: a draw, with the perfect player's line.
	b.run("evaluate", chromedp.Click(chromedp.CSS("#analyse")))
	waitFor(b, "the evaluation", `document.querySelectorAll("#pv li").length > 0`)
	if got := b.text("#eval-summary"); got != "a draw with best play." {
		t.Errorf("evaluation %q, want a draw with best play", got)
	}
	b.screenshot("evaluation")
}

// TestBrowserPlayTakenRefused clicks a taken square: the server refuses
// it, the page says why and the board stays as it was.
func TestBrowserPlayTakenRefused(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /play", chromedp.Navigate(b.url+"/play"), chromedp.WaitVisible(chromedp.CSS("#board .cell")))
	waitFor(b, "the first move", `document.querySelector("#status").textContent === "Your move (X)"`)
	clickAndWait(b, `#board .cell[data-r="1"][data-c="1"]`)
	before := boardText(b)
	if before != "O...X...." {
		t.Fatalf("board %q after 1,1: want perfect's reply in 0,0", before)
	}
	b.run("click a taken square", chromedp.Click(chromedp.CSS(`#board .cell[data-r="0"][data-c="0"]`)))
	waitFor(b, "the refusal", `document.querySelector("#error").textContent !== ""`)
	if got := b.text("#error"); got != "cell 0,0 is taken" {
		t.Errorf("error %q, want %q", got, "cell 0,0 is taken")
	}
	if got := boardText(b); got != before {
		t.Errorf("board %q after the refused move, want %q", got, before)
	}
	b.screenshot("taken-refused")
}

// TestBrowserPlayGomoku plays a move of gomoku (15x15) against the engine:
// the board fits beside the panels, and the evaluation shows a line.
func TestBrowserPlayGomoku(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /play", chromedp.Navigate(b.url+"/play"), chromedp.WaitVisible(chromedp.CSS("#board .cell")))
	waitFor(b, "the first game", idle)
	b.run("choose gomoku", chromedp.SetValue(chromedp.CSS("#preset"), "15,15,5"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#preset").dispatchEvent(new Event("change"))`))
	if perfect := eval[bool](b, `document.querySelector('#opponent option[value="perfect"]').disabled`); !perfect {
		t.Error("perfect offered on 15x15")
	}
	b.run("choose 100ms", chromedp.SetValue(chromedp.CSS("#opponent"), "engine:time=100ms"), chromedp.Click(chromedp.CSS("#new-game")))
	waitFor(b, "the gomoku board", `document.querySelectorAll("#board .cell").length === 225 && `+idle)
	clickAndWait(b, `#board .cell[data-r="7"][data-c="7"]`)
	clickAndWait(b, `#board .cell[data-r="7"][data-c="8"]`)
	if n := taken(b); n != 4 {
		t.Errorf("%d stones after two moves and replies, want 4", n)
	}
	fits := eval[bool](b, `(() => {
		const board = document.querySelector("#board").getBoundingClientRect();
		const side = document.querySelector(".side").getBoundingClientRect();
		return board.right <= window.innerWidth && (board.right <= side.left || board.bottom <= side.top);
	})()`)
	if !fits {
		t.Error("the 15x15 board does not fit beside the panels")
	}
	if cell := eval[float64](b, `document.querySelector("#board .cell").getBoundingClientRect().width`); cell < 24 {
		t.Errorf("cells %.0f px wide on 15x15, want at least 24", cell)
	}
	b.run("evaluate", chromedp.Click(chromedp.CSS("#analyse")))
	waitFor(b, "the evaluation", `document.querySelectorAll("#pv li").length > 0`)
	if got := b.text("#eval-detail"); !strings.Contains(got, "engine:time=1s") {
		t.Errorf("evaluation detail %q: want the engine's search for a second", got)
	}
	b.screenshot("gomoku")
}

// TestBrowserGameKept: the page lists the moves, steps back through them
// and forward again, shows the game written down, and loads one: the
// board after its moves, the engine replying when it is its turn.
func TestBrowserGameKept(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /play", chromedp.Navigate(b.url+"/play"), chromedp.WaitVisible(chromedp.CSS("#board .cell")))
	waitFor(b, "the first move", `document.querySelector("#status").textContent === "Your move (X)"`)
	clickAndWait(b, `#board .cell[data-r="1"][data-c="1"]`) // X 1,1, O replies
	now := boardText(b)
	if n := eval[int](b, `document.querySelectorAll("#moves li").length`); n != 2 {
		t.Fatalf("%d moves listed, want 2", n)
	}
	record := eval[string](b, `document.querySelector("#record").value`)
	if !strings.HasPrefix(record, "3x3 k3: 1,1 ") {
		t.Errorf("the game written down %q, want 3x3 k3: 1,1 ...", record)
	}
	b.run("one move back", chromedp.Click("#step-back"))
	if got := boardText(b); got != "....X...." {
		t.Errorf("after one move back: %q, want X alone in the centre", got)
	}
	if !strings.Contains(b.text("#viewing"), "after 1 of 2 moves") {
		t.Errorf("viewing %q", b.text("#viewing"))
	}
	b.run("the empty board", chromedp.Click("#step-first"))
	if got := boardText(b); got != "........." {
		t.Errorf("at the start: %q", got)
	}
	b.screenshot("stepping")
	b.run("the game now", chromedp.Click("#step-last"))
	if got := boardText(b); got != now || b.text("#viewing") != "" {
		t.Errorf("back to the game: %q (%q), want %q", got, b.text("#viewing"), now)
	}
	// A game written down, loaded: X 1,1 and O 0,0 on the board, X to
	// move (the person's turn).
	b.run("load a game", chromedp.SetValue("#load", "3x3 k3: 1,1 0,0"), chromedp.Click(`#load-form button`))
	waitFor(b, "the loaded game", idle+` && document.querySelector("#record").value === "3x3 k3: 1,1 0,0"`)
	if got := boardText(b); got != "O...X...." {
		t.Errorf("loaded: %q, want O in the corner and X in the centre", got)
	}
	b.run("load a game that cannot be played", chromedp.SetValue("#load", "3x3 k3: 1,1 1,1"), chromedp.Click(`#load-form button`))
	waitFor(b, "the refusal", `document.querySelector("#error").textContent !== ""`)
	if msg := b.text("#error"); !strings.Contains(msg, "move 2 1,1: the cell is taken") {
		t.Errorf("loading a taken cell: %q", msg)
	}
}
