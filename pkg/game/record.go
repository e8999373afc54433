package game

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MNKRecord is an m,n,k-game written down, as people keep and exchange it:
// the board, k, and the moves from the empty board, X first. Rows,
// columns and moves are numbered from 0, top left first, as everywhere in
// wopr. Its text (String, ParseMNKRecord) is
//
//	3x3 k3: 1,1 0,0 2,2
//
// the board RxC, then k, a colon, and the moves as row,col separated by
// spaces (none: "3x3 k3:"). A position is the record of a game that
// reaches it.
type MNKRecord struct {
	Rows, Cols, K int
	Moves         [][2]int // row, col
}

// String writes r as ParseMNKRecord reads it.
func (r MNKRecord) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%dx%d k%d:", r.Rows, r.Cols, r.K)
	for _, m := range r.Moves {
		fmt.Fprintf(&b, " %d,%d", m[0], m[1])
	}
	return b.String()
}

// recordHead is a record's board and k.
var recordHead = regexp.MustCompile(`^\s*([0-9]{1,3})x([0-9]{1,3})\s+k\s*([0-9]{1,3})\s*:`)

// ParseMNKRecord reads a record written as MNKRecord.String writes it.
// It reads the form only; NewMNKFromRecord plays it, checking each move.
func ParseMNKRecord(s string) (MNKRecord, error) {
	m := recordHead.FindStringSubmatchIndex(s)
	if m == nil {
		return MNKRecord{}, fmt.Errorf("game %q: want RxC kK: moves, e.g. \"3x3 k3: 1,1 0,0\"", s)
	}
	num := func(i int) int { n, _ := strconv.Atoi(s[m[2*i]:m[2*i+1]]); return n }
	r := MNKRecord{Rows: num(1), Cols: num(2), K: num(3)}
	for i, item := range strings.Fields(s[m[1]:]) {
		rs, cs, ok := strings.Cut(item, ",")
		row, err1 := strconv.Atoi(rs)
		col, err2 := strconv.Atoi(cs)
		if !ok || err1 != nil || err2 != nil {
			return MNKRecord{}, fmt.Errorf("game: move %d %q: want row,col from 0", i+1, item)
		}
		r.Moves = append(r.Moves, [2]int{row, col})
	}
	return r, nil
}

// NewMNKFromRecord plays the moves of r from the empty board. An error
// names the move at fault (from 1) and why: off the board, taken, or after
// the game was over; or the board's own error.
func NewMNKFromRecord(r MNKRecord) (*MNK, error) {
	g, err := NewMNK(r.Rows, r.Cols, r.K)
	if err != nil {
		return nil, err
	}
	if err := g.PlayRecord(r.Moves); err != nil {
		return nil, err
	}
	return g, nil
}

// PlayRecord plays moves on g, checking each; on an error g is as it was.
func (g *MNK) PlayRecord(moves [][2]int) error {
	played := 0
	for i, m := range moves {
		why := ""
		switch reasons := g.Refuse(m[0], m[1]); {
		case reasons&Over != 0:
			why = "the game was over"
		case reasons&OffBoard != 0:
			why = fmt.Sprintf("off the %dx%d board (rows and columns from 0)", g.rows, g.cols)
		case reasons&Taken != 0:
			why = "the cell is taken"
		}
		if why != "" {
			for range played {
				g.TakeBack()
			}
			return fmt.Errorf("game: move %d %d,%d: %s", i+1, m[0], m[1], why)
		}
		g.Play(m[0]*g.cols + m[1])
		played++
	}
	return nil
}

// Record writes g down.
func (g *MNK) Record() MNKRecord {
	r := MNKRecord{Rows: g.rows, Cols: g.cols, K: g.k, Moves: make([][2]int, len(g.moves))}
	for i, c := range g.moves {
		r.Moves[i] = [2]int{c / g.cols, c % g.cols}
	}
	return r
}
