package sudoku

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func parseAll(t *testing.T, text string) []Item {
	t.Helper()
	var items []Item
	if err := Parse(strings.NewReader(text), func(it Item) error {
		items = append(items, it)
		return nil
	}); err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return items
}

const euler01Grid = `003020600
900305001
001806400
008102900
700000008
006708200
002609500
800203009
005010300
`

const euler01Boxed = `+-------+-------+-------+
| . . 3 | . 2 . | 6 . . |
| 9 . . | 3 . 5 | . . 1 |
| . . 1 | 8 . 6 | 4 . . |
+-------+-------+-------+
| . . 8 | 1 . 2 | 9 . . |
| 7 . . | . . . | . . 8 |
| . . 6 | 7 . 8 | 2 . . |
+-------+-------+-------+
| . . 2 | 6 . 9 | 5 . . |
| 8 . . | 2 . 3 | . . 9 |
| . . 5 | . 1 . | 3 . . |
+-------+-------+-------+
`

// Every layout and every kind of bad line, in one file: each puzzle line
// gives exactly one item, in order, with its line and a precise reason.
func TestParse(t *testing.T) {
	e01 := known[0].puzzle
	text := "# a comment\n" + // 1
		e01 + "\n" + // 2
		"\n" + // 3
		strings.ReplaceAll(e01, ".", "0") + "\r\n" + // 4
		strings.ReplaceAll(e01, ".", "_") + "\n" + // 5
		e01[:80] + "\n" + // 6: 80 cells
		e01[:16] + "x" + e01[17:] + "\n" + // 7: bad character
		e01 + "5\n" + // 8: 82 cells
		"\n" +
		euler01Grid + // 10-18
		"\n" + // 19
		euler01Boxed + // 20-32: first row on 21
		"\n" + // 33
		"003020600\n900305001\n00180640\n008102900\n\n" + // 34-37: a short row
		"003020600\n900305001\n\n" + // 39-40: two rows only
		"  # indented comment\n" + // 42
		Grid{}.Format() // 43-53: an empty grid, no blank line at the end
	items := parseAll(t, text)
	want := []struct {
		line int
		err  string
	}{
		{2, ""}, {4, ""}, {5, ""},
		{6, "80 cells, want 81"},
		{7, "column 17: 'x' is not a digit or an empty mark"},
		{8, "82 cells, want 81"},
		{10, ""}, {21, ""},
		{34, "row 3 (line 36): 8 cells, want 9"},
		{39, "grid of 2 rows, want 9 (or 81 cells on one line)"},
		{43, ""},
	}
	if len(items) != len(want) {
		for _, it := range items {
			t.Logf("line %d: %v", it.Line, it.Err)
		}
		t.Fatalf("got %d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		it := items[i]
		got := ""
		if it.Err != nil {
			got = it.Err.Error()
		}
		if it.Line != w.line || got != w.err {
			t.Errorf("item %d: line %d %q, want line %d %q", i, it.Line, got, w.line, w.err)
			continue
		}
		if w.err == "" && w.line != 43 && it.Grid.String() != e01 {
			t.Errorf("item %d (line %d): grid %s, want %s", i, it.Line, it.Grid, e01)
		}
	}
	if items[len(items)-1].Grid != (Grid{}) {
		t.Errorf("last item: %s, want the empty grid", items[len(items)-1].Grid)
	}
}

// A line that cannot be a row ends an unfinished grid and is a puzzle of
// its own: a stray line of 9 cells, or a grid short of rows, does not take
// the puzzles after it.
func TestParseGridEndedByLine(t *testing.T) {
	e01 := known[0].puzzle
	rows := strings.Split(euler01Grid, "\n")
	text := "..3.2.6..\n" + // 1: a stray line of 9 cells
		e01 + "\n" + // 2
		e01[:80] + "\n" + // 3
		strings.Join(rows[:8], "\n") + "\n" + // 4-11: 8 rows
		e01 + "\n" + // 12
		strings.Join(rows[:3], "\n") + "\n" + // 13-15
		"0030206001\n" + // 16: a row of 10 cells is a bad row
		strings.Join(rows[4:9], "\n") + "\n" + // 17-21
		"\n" +
		"0030206\xff0\n" // 23: a byte that is not UTF-8
	items := parseAll(t, text)
	want := []struct {
		line int
		err  string
	}{
		{1, "grid of 1 row, want 9 (or 81 cells on one line)"},
		{2, ""},
		{3, "80 cells, want 81"},
		{4, "grid of 8 rows, want 9 (or 81 cells on one line)"},
		{12, ""},
		{13, "row 4 (line 16): 10 cells, want 9"},
		{23, `column 8: '\xff' is not a digit or an empty mark`},
	}
	if len(items) != len(want) {
		for _, it := range items {
			t.Logf("line %d: %v", it.Line, it.Err)
		}
		t.Fatalf("got %d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		got := ""
		if items[i].Err != nil {
			got = items[i].Err.Error()
		}
		if items[i].Line != w.line || got != w.err {
			t.Errorf("item %d: line %d %q, want line %d %q", i, items[i].Line, got, w.line, w.err)
		}
	}
}

func TestParseByteOrderMark(t *testing.T) {
	items := parseAll(t, "\ufeff"+known[0].puzzle+"\n\ufeff"+known[0].puzzle+"\n")
	if len(items) != 2 || items[0].Err != nil || items[1].Err == nil {
		t.Fatalf("got %+v, want a puzzle on line 1 (mark skipped) and an error on line 2", items)
	}
}

func TestParseLongLine(t *testing.T) {
	items := parseAll(t, strings.Repeat("1", 200000)+"\n"+known[0].puzzle+"\n")
	if len(items) != 2 || items[0].Err == nil || items[0].Line != 1 || items[1].Err != nil || items[1].Line != 2 {
		t.Fatalf("got %+v, want an error on line 1 and a puzzle on line 2", items)
	}
	if !strings.Contains(items[0].Err.Error(), "longer than") {
		t.Errorf("error %q, want it to say the line is too long", items[0].Err)
	}
}

func TestParseLine(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{known[0].puzzle, ""},
		{"", "0 cells, want 81"},
		{"é" + known[0].puzzle[1:], "column 1: 'é' is not a digit or an empty mark"},
	} {
		_, err := ParseLine(c.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("ParseLine(%q) error %q, want %q", c.in, got, c.err)
		}
	}
}

// FuzzParse: whatever the input, every item is a grid or an error, and a
// grid printed by String or Format parses back to itself.
func FuzzParse(f *testing.F) {
	f.Add(known[0].puzzle + "\n" + euler01Boxed)
	f.Add(euler01Grid + "\n\n" + "1 2 3\n# x\n")
	f.Add("12345678x\n---\n")
	f.Fuzz(func(t *testing.T, text string) {
		err := Parse(strings.NewReader(text), func(it Item) error {
			if it.Line < 1 {
				t.Fatalf("item at line %d", it.Line)
			}
			if it.Err != nil {
				if it.Grid != (Grid{}) {
					t.Fatalf("line %d: error %v with a grid %s", it.Line, it.Err, it.Grid)
				}
				return nil
			}
			g, err := ParseLine(it.Grid.String())
			if err != nil || g != it.Grid {
				t.Fatalf("line %d: %s parsed back as %s, %v", it.Line, it.Grid, g, err)
			}
			var again []Item
			Parse(strings.NewReader(it.Grid.Format()), func(it Item) error { again = append(again, it); return nil })
			if len(again) != 1 || again[0].Err != nil || again[0].Grid != it.Grid {
				t.Fatalf("line %d: Format of %s parsed back as %+v", it.Line, it.Grid, again)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkParse reads royle17 (4 MB, 49,158 lines).
func BenchmarkParse(b *testing.B) {
	data := datasetText(b, "royle17.txt.gz")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	n := 0
	for b.Loop() {
		Parse(bytes.NewReader(data), func(it Item) error { n++; return it.Err })
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "puzzles/s")
}

// endsGrid tells whether a piece's last item is a puzzle that ended an
// unfinished grid before it (the one case where a piece holds per+1 items).
func endsGrid(piece []byte) bool {
	var items []Item
	ParseBytes(piece, 1, func(it Item) error { items = append(items, it); return nil })
	if len(items) < 2 {
		return false
	}
	err := items[len(items)-2].Err
	return err != nil && (strings.HasPrefix(err.Error(), "grid of ") || strings.HasPrefix(err.Error(), "row "))
}

// cutMatchesParse checks Cut, Compact and ParseBytes against Parse: the
// pieces cover the text, a piece ends after per items or past maxBytes,
// and their items, read with ParseBytes from their first lines, compacted
// or not, are exactly the items of Parse.
func cutMatchesParse(t *testing.T, text string, per, maxBytes int) {
	t.Helper()
	var want []Item
	if err := Parse(strings.NewReader(text), func(it Item) error { want = append(want, it); return nil }); err != nil {
		t.Fatal(err)
	}
	var got, gotCompact []Item
	var whole []byte
	pieces := 0
	err := Cut([]byte(text), per, maxBytes, func(piece []byte, line, items, compacted int) error {
		pieces++
		if items > max(per, 1)+1 || items > max(per, 1) && !endsGrid(piece) {
			t.Fatalf("piece %d at line %d: %d items, more than %d", pieces, line, items, per)
		}
		whole = append(whole, piece...)
		n := 0
		if err := ParseBytes(piece, line, func(it Item) error { n++; got = append(got, it); return nil }); err != nil {
			return err
		}
		if n != items {
			t.Fatalf("piece %d at line %d: Cut counted %d items, ParseBytes read %d", pieces, line, items, n)
		}
		compact := Compact(nil, piece)
		if len(compact) > len(piece) {
			t.Fatalf("piece %d: Compact made it longer", pieces)
		}
		size := 0
		for line := range bytes.Lines(piece) {
			size += compactLen(line)
		}
		if size != len(compact) || compacted != len(compact) {
			t.Fatalf("piece %d: compactLen sums to %d, Cut said %d, Compact made %d bytes", pieces, size, compacted, len(compact))
		}
		return ParseBytes(compact, line, func(it Item) error { gotCompact = append(gotCompact, it); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(whole) != text {
		t.Fatalf("pieces do not cover the text")
	}
	for _, items := range [][]Item{got, gotCompact} {
		if len(items) != len(want) {
			t.Fatalf("per %d: %d items from the pieces, %d from Parse", per, len(items), len(want))
		}
		for i := range want {
			g, w := items[i], want[i]
			if g.Line != w.Line || g.Grid != w.Grid || fmt.Sprint(g.Err) != fmt.Sprint(w.Err) {
				t.Fatalf("per %d item %d: %+v, want %+v", per, i, g, w)
			}
		}
	}
}

func TestCutAndParseBytes(t *testing.T) {
	e01 := known[0].puzzle
	texts := []string{
		"",
		"\n\n# only comments\n",
		"\ufeff" + e01 + "\n" + e01,
		euler01Grid + "\n" + euler01Boxed + e01 + "\n" + euler01Grid[:30] + "\n\n" + e01 + "\r\n",
		strings.Repeat("1", 200000) + "\n" + e01 + "\n" + strings.Repeat("2", maxLine-1) + "\n" + e01,
		strings.Repeat("3", maxLine) + "\n" + strings.Repeat("4", maxLine+1) + "\n" + e01 + "\n" + strings.Repeat("5", maxLine+1),
		"#",
		"# x\n" + e01[:80] + "\n" + e01[:16] + "x" + e01[17:] + "\n" + euler01Grid + euler01Grid + "123\n",
		"123456789\n  # " + strings.Repeat("c", 100000) + "\n# short\n" + euler01Grid[10:] + "\t#\n" + e01,
	}
	for _, text := range texts {
		for per := 1; per <= 4; per++ {
			for _, maxBytes := range []int{0, 1, 100, 1 << 20} {
				cutMatchesParse(t, text, per, maxBytes)
			}
		}
	}
}

// Pieces of one-line puzzles end at maxBytes.
func TestCutMaxBytes(t *testing.T) {
	text := strings.Repeat(known[0].puzzle+"\n", 100)
	var sizes []int
	Cut([]byte(text), 1000, 82*30, func(piece []byte, line, items, _ int) error {
		sizes = append(sizes, items)
		return nil
	})
	if fmt.Sprint(sizes) != "[30 30 30 10]" {
		t.Errorf("pieces of %v puzzles, want [30 30 30 10]", sizes)
	}
}

// FuzzCut: any text cut into pieces of any size reads as the whole text.
func FuzzCut(f *testing.F) {
	f.Add(known[0].puzzle+"\n"+euler01Boxed+"\n"+euler01Grid, 1, 0)
	f.Add(euler01Grid+"\n\n"+"1 2 3\n# x\n"+known[0].puzzle, 2, 50)
	f.Add("\ufeff123456789\n\n---\n"+known[0].puzzle, 3, 7)
	f.Add("..3.2.6..\n"+known[0].puzzle+"\n"+euler01Grid[:50]+known[0].puzzle+"\n", 1, 0)
	f.Fuzz(func(t *testing.T, text string, per, maxBytes int) {
		cutMatchesParse(t, text, per%7, maxBytes%300)
	})
}

// plainWord agrees with cellValue, the byte-at-a-time reading, for every
// byte value at every position of the word, among neighbours that are
// cells and neighbours that are not, bytes of 0x80 and more among them.
func TestPlainWord(t *testing.T) {
	neighbours := [][8]byte{
		[8]byte([]byte("12345678")), [8]byte([]byte("........")), [8]byte([]byte("0_9.1_0.")),
		{0xff, 0x80, 0x7f, 0x2f, 0x3a, 0x00, 0x5e, 0x60}, {0x2d, 0x2f, 0x5f, 0x30, 0x39, 0x2e, 0xb9, 0xae},
	}
	for _, nb := range neighbours {
		for pos := range 8 {
			for v := range 256 {
				w := nb
				w[pos] = byte(v)
				var want [8]byte
				wantOK := true
				for i, c := range w {
					want[i] = cellValue[c]
					wantOK = wantOK && want[i]&0xf0 == 0
				}
				x := uint64(0)
				for i := 7; i >= 0; i-- {
					x = x<<8 | uint64(w[i])
				}
				cells, bad := plainWord(x)
				if ok := bad == 0; ok != wantOK {
					t.Fatalf("%q: ok %v, want %v", w[:], ok, wantOK)
				}
				if bad != 0 {
					continue
				}
				for i := range 8 {
					if got := byte(cells >> (8 * i)); got != want[i] {
						t.Fatalf("%q: cell %d is %d, want %d", w[:], i, got, want[i])
					}
				}
			}
		}
	}
}

// Clues counts the filled cells, whatever bytes a grid holds.
func TestClues(t *testing.T) {
	var g Grid
	for i := range 2000 {
		want := 0
		for c := range g {
			g[c] = 0
			if (i*7+c*13)%(i%5+2) == 0 {
				g[c] = byte(1 + (i*c)%255)
				want++
			}
		}
		if got := g.Clues(); got != want {
			t.Fatalf("%v: %d clues, want %d", g, got, want)
		}
	}
}
