package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// shownGrid is the grid as the page shows it: 81 characters, '.' for an
// empty cell, and which cells are givens.
func shownGrid(b *browser) (grid, givens string) {
	b.t.Helper()
	grid = eval[string](b, `[...document.querySelectorAll('#sdk-grid .sdk-cell')].map(c => c.firstChild.textContent || '.').join('')`)
	givens = eval[string](b, `[...document.querySelectorAll('#sdk-grid .sdk-cell')].map(c => c.classList.contains('given') ? c.firstChild.textContent : '.').join('')`)
	if len(grid) != 81 || len(givens) != 81 {
		b.t.Fatalf("the page shows %d cells (%d givens' places), want 81", len(grid), len(givens))
	}
	return grid, givens
}

func cellSel(i int) chromedp.CSS { return chromedp.CSS(fmt.Sprintf(`.sdk-cell[data-i="%d"]`, i)) }

// validSolution checks, without the engine, that grid is a solved Sudoku
// that keeps the givens: each row, column and box holds 1 to 9.
func validSolution(grid, givens string) error {
	if len(grid) != 81 {
		return fmt.Errorf("%d cells, want 81", len(grid))
	}
	for i := range 81 {
		if givens[i] != '.' && givens[i] != grid[i] {
			return fmt.Errorf("r%dc%d: %c, but the given is %c", i/9+1, i%9+1, grid[i], givens[i])
		}
	}
	for u := range 27 {
		seen := map[byte]bool{}
		for k := range 9 {
			var i int
			switch {
			case u < 9: // row
				i = u*9 + k
			case u < 18: // column
				i = k*9 + u - 9
			default: // box
				b := u - 18
				i = (b/3*3+k/3)*9 + b%3*3 + k%3
			}
			c := grid[i]
			if c < '1' || c > '9' || seen[c] {
				return fmt.Errorf("unit %d (rows, columns, boxes from 0): %c at r%dc%d is missing or repeated", u, c, i/9+1, i%9+1)
			}
			seen[c] = true
		}
	}
	return nil
}

// TestBrowserSudoku types a digit that repeats one of its row's givens and
// sees it red with the conflict named, a right one green, asks for a hint
// and a check, uses pencil marks and undo, then solves and reads a valid
// grid off the page.
func TestBrowserSudoku(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /sudoku", chromedp.Navigate(b.url+"/sudoku"),
		chromedp.Poll[chromedp.Void](`document.querySelector('#sdk-grid').dataset.id`))
	id := eval[string](b, `document.querySelector('#sdk-grid').dataset.id`)
	game, ok := s.sdk.get(id)
	if !ok {
		t.Fatalf("the page plays game %q, which the server does not have", id)
	}
	solution := game.solution.String()
	grid, givens := shownGrid(b)
	if givens != game.puzzle.String() || grid != givens {
		t.Fatalf("the page shows %s with givens %s, want the puzzle %s", grid, givens, game.puzzle)
	}
	b.screenshot("new")

	// A digit that repeats a given of its row: an empty cell and a given
	// of the same row.
	cell, other := -1, -1
	for i := 0; i < 81 && cell < 0; i++ {
		for k := range 9 {
			if j := i/9*9 + k; givens[i] == '.' && givens[j] != '.' {
				cell, other = i, j
				break
			}
		}
	}
	d := string(givens[other])
	b.run("type a repeated digit", chromedp.Click(cellSel(cell)), chromedp.KeyEvent(d),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`.sdk-cell.conflict[data-i="%d"]`, cell))))
	want := fmt.Sprintf("%s at %s repeats %s (row %d)", d, sudokuCell(cell), sudokuCell(other), cell/9+1)
	if got := b.text("#sdk-conflicts"); !strings.Contains(got, want) {
		t.Errorf("conflicts %q, want them to name %q", got, want)
	}
	red := eval[string](b, fmt.Sprintf(`getComputedStyle(document.querySelector('.sdk-cell[data-i="%d"]')).color`, cell))
	if red != "rgb(217, 48, 37)" {
		t.Errorf("a repeated digit's colour %s, want red rgb(217, 48, 37)", red)
	}
	if !eval[bool](b, fmt.Sprintf(`document.querySelector('.sdk-cell[data-i="%d"]').classList.contains('same')`, other)) {
		t.Errorf("the given %s at %s, the selected cell's digit, is not marked", d, sudokuCell(other))
	}
	b.screenshot("conflict")

	// The right digit instead: green, no conflict.
	b.run("type the solution's digit", chromedp.KeyEvent(kb.Backspace), chromedp.KeyEvent(solution[cell:cell+1]),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('.sdk-cell[data-i="%d"]').textContent === %q`, cell, solution[cell:cell+1])))
	if got := b.text("#sdk-conflicts"); got != "" {
		t.Errorf("conflicts %q after the right digit, want none", got)
	}
	green := eval[string](b, fmt.Sprintf(`getComputedStyle(document.querySelector('.sdk-cell[data-i="%d"]')).color`, cell))
	if green != "rgb(30, 142, 62)" {
		t.Errorf("a legal digit's colour %s, want green rgb(30, 142, 62)", green)
	}

	// A hint: in words, its cell highlighted.
	b.run("hint", chromedp.Click(chromedp.CSS("#sdk-hint")), chromedp.WaitVisible(chromedp.CSS("#sdk-hint-box .title")),
		chromedp.WaitVisible(chromedp.CSS(".sdk-cell.hint")))
	hint := b.text("#sdk-hint-box .title")
	hinted := eval[int](b, `Number(document.querySelector('.sdk-cell.hint').dataset.i)`)
	if !strings.HasPrefix(hint, sudokuCell(hinted)) {
		t.Errorf("hint %q, highlighted cell %s: want the hint to name it", hint, sudokuCell(hinted))
	}
	b.screenshot("hint")

	// A wrong digit that breaks no rule, found by check. Then pencil marks
	// in another cell, and undo.
	wrong, wd := -1, byte(0)
	for i := 0; i < 81 && wrong < 0; i++ {
		if givens[i] != '.' || i == cell {
			continue
		}
		for c := byte('1'); c <= '9'; c++ {
			if c != solution[i] && !repeats(givens, i, c) && !(sameUnit(i, cell) && c == solution[cell]) {
				wrong, wd = i, c
				break
			}
		}
	}
	b.run("type a wrong digit and check", chromedp.Click(cellSel(wrong)), chromedp.KeyEvent(string(wd)),
		chromedp.Click(chromedp.CSS("#sdk-check")),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`.sdk-cell.mistake[data-i="%d"]`, wrong))))
	if got := b.text("#sdk-status"); !strings.Contains(got, "1 mistake: "+sudokuCell(wrong)) {
		t.Errorf("status after check %q, want it to name the mistake %s", got, sudokuCell(wrong))
	}
	b.screenshot("check")

	var pencilCell int
	for pencilCell = 0; givens[pencilCell] != '.' || pencilCell == cell || pencilCell == wrong; pencilCell++ {
	}
	b.run("pencil marks", chromedp.Click(cellSel(pencilCell)),
		chromedp.KeyEvent("1", chromedp.KeyModifiers(chromedp.ModifierShift)),
		chromedp.Click(chromedp.CSS("#sdk-pencil")), chromedp.Click(chromedp.CSS(`#sdk-pad button[data-d="5"]`)),
		chromedp.KeyEvent("9"),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('.sdk-cell[data-i="%d"] .sdk-marks').textContent === "159"`, pencilCell)))
	b.screenshot("pencil")
	b.run("undo", chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('.sdk-cell[data-i="%d"] .sdk-marks').textContent === "15"`, pencilCell)),
		chromedp.KeyEvent("y", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('.sdk-cell[data-i="%d"] .sdk-marks').textContent === "159"`, pencilCell)))

	b.run("solve", chromedp.Click(chromedp.CSS("#sdk-solve")), chromedp.WaitVisible(chromedp.CSS("#sdk-grid.solved")))
	shown, shownGivens := shownGrid(b)
	if shownGivens != givens {
		t.Errorf("givens after solve %s, want %s", shownGivens, givens)
	}
	if err := validSolution(shown, givens); err != nil {
		t.Errorf("the solved grid %s: %v", shown, err)
	}
	if got := b.text("#sdk-conflicts"); got != "" {
		t.Errorf("conflicts %q on the solved grid, want none", got)
	}
	b.screenshot("solved")

	// A fiendish puzzle from the button, on a restarted clock, and a hint
	// for it.
	b.run("new fiendish puzzle", chromedp.SetValue(chromedp.CSS("#sdk-level"), "fiendish"), chromedp.Click(chromedp.CSS("#sdk-new")),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('#sdk-grid').dataset.id !== %q`, id)),
		chromedp.Click(chromedp.CSS("#sdk-hint")), chromedp.WaitVisible(chromedp.CSS("#sdk-hint-box .title")))
	if info := b.text("#sdk-info"); !strings.HasPrefix(info, "fiendish · rating ") {
		t.Errorf("info %q, want a fiendish puzzle", info)
	}
	if clock := b.text("#sdk-timer"); !strings.HasPrefix(clock, "0:0") {
		t.Errorf("timer %q on a new puzzle, want it restarted", clock)
	}
	if grid, givens := shownGrid(b); grid != givens || eval[bool](b, `document.querySelector('#sdk-grid').classList.contains('solved')`) {
		t.Errorf("the new puzzle shows %s (givens %s) or as solved, want its givens only", grid, givens)
	}
	b.screenshot("fiendish-hint")
}

// repeats reports whether digit c is a given of a unit of cell i.
func repeats(givens string, i int, c byte) bool {
	for j := range 81 {
		if j != i && sameUnit(i, j) && givens[j] == c {
			return true
		}
	}
	return false
}

func sameUnit(i, j int) bool {
	return i/9 == j/9 || i%9 == j%9 || (i/27 == j/27 && i%9/3 == j%9/3)
}

// TestBrowserSudokuPaste pastes puzzles: a malformed one and one with
// several solutions are refused with their reasons, a good one is played
// from a fresh clock, with the arrows and digits.
func TestBrowserSudokuPaste(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /sudoku", chromedp.Navigate(b.url+"/sudoku"),
		chromedp.Poll[chromedp.Void](`document.querySelector('#sdk-grid').dataset.id`),
		chromedp.Click(chromedp.CSS("#sdk-paste-box summary")), chromedp.WaitVisible(chromedp.CSS("#sdk-paste")))
	for _, tc := range []struct{ puzzle, want string }{
		{sudokuEasy[:80], "80 cells, want 81"},
		{sudokuNoGivens[:79] + "12", "the puzzle has several solutions: r"},
	} {
		b.run("paste "+tc.puzzle, chromedp.SetValue(chromedp.CSS("#sdk-paste"), tc.puzzle), chromedp.Click(chromedp.CSS("#sdk-load")),
			chromedp.Poll[chromedp.Void](`document.querySelector('#sdk-paste-error').textContent`))
		if got := b.text("#sdk-paste-error"); !strings.Contains(got, tc.want) {
			t.Errorf("pasted %s: error %q, want it to contain %q", tc.puzzle, got, tc.want)
		}
	}
	b.screenshot("refused")
	first := eval[string](b, `document.querySelector('#sdk-grid').dataset.id`)
	b.run("paste a good one", chromedp.SetValue(chromedp.CSS("#sdk-paste"), sudokuEasy), chromedp.Click(chromedp.CSS("#sdk-load")),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('#sdk-grid').dataset.id !== %q`, first)))
	grid, givens := shownGrid(b)
	if want := strings.ReplaceAll(sudokuEasy, "0", "."); grid != want || givens != want {
		t.Errorf("after paste the page shows %s, givens %s; want %s", grid, givens, want)
	}
	if info := b.text("#sdk-info"); !strings.HasPrefix(info, "pasted · rating ") {
		t.Errorf("info %q, want a pasted, rated puzzle", info)
	}
	if clock := b.text("#sdk-timer"); !strings.HasPrefix(clock, "0:0") {
		t.Errorf("timer %q on a new puzzle, want it restarted", clock)
	}
	// The page selects the first empty cell, r1c1; two to the right is
	// r1c3, a given 3; one down from there, r2c3, empty: 7 is its digit.
	b.run("arrows and a digit", chromedp.KeyEvent(kb.ArrowRight+kb.ArrowRight+kb.ArrowDown+"7"),
		chromedp.Poll[chromedp.Void](`document.querySelector('.sdk-cell[data-i="11"]').textContent === "7"`))
	if sel := eval[int](b, `Number(document.querySelector('.sdk-cell.sel').dataset.i)`); sel != 11 {
		t.Errorf("selected cell %d, want 11 (r2c3)", sel)
	}
	b.screenshot("pasted")

	// A reload resumes the game with its entries.
	id := eval[string](b, `document.querySelector('#sdk-grid').dataset.id`)
	b.run("reload", chromedp.Navigate(b.url+"/sudoku"),
		chromedp.Poll[chromedp.Void](`document.querySelector('#sdk-grid').dataset.id`))
	if got := eval[string](b, `document.querySelector('#sdk-grid').dataset.id`); got != id {
		t.Errorf("after a reload the page plays game %s, want %s", got, id)
	}
	if grid, _ := shownGrid(b); grid[11] != '7' {
		t.Errorf("after a reload r2c3 shows %c, want the 7 entered", grid[11])
	}
}
