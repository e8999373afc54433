// Package cert is the certificate of the value of an m,n,k position: the
// strategies that prove it (Certificate), their text form (WriteTo, Read)
// and their verifier (Verify), which plays them out with rules of its own
// and trusts none of the engines that found them. The solvers write them:
// solve.NewCertificate, pns.NewCertificate.
package cert

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// A Certificate proves the value of a position with strategies that anyone
// can check by playing them out against every reply, without trusting the
// solver that found them. A win is proven by a strategy of the winner that
// wins against every defence; a draw by a strategy of each side that never
// loses. A strategy gives one move for each position, up to symmetry, where
// its side is to move and which can arise when it is followed; a strategy
// that does not lose may instead end a line of play with a pairing (see
// Strategy.Pairings), which the verifier checks by itself.
type Certificate struct {
	Game       *mnk.Game
	Root       mnk.Position
	Value      mnk.Value // of Root, for the side to move there
	Strategies []*Strategy
	// Zones says that a strategy that does not lose leaves out moves of
	// the other side that Verify's zones answer (see Zones in zones.go,
	// and Prune): a certificate of version 3, which builds that predate
	// zones refuse rather than find incomplete.
	Zones bool
}

// Strategy is one side's moves.
type Strategy struct {
	// X is true for a strategy of X, false for one of O.
	X bool
	// Win is true for a strategy that wins, false for one that does not
	// lose.
	Win bool
	// Moves maps each canonical position (see mnk.Game.Canonical) where the
	// side is to move to a cell, in that canonical position's frame.
	Moves map[mnk.Position]int8
	// Pairings maps canonical positions, with either side to move, to a
	// pairing strategy of the side (only in a strategy that does not
	// lose): disjoint pairs of empty cells, in the canonical position's
	// frame, such that every window of k cells free of the side's stones
	// holds both cells of one pair. From such a position the side answers
	// a move of the other on a cell of a pair with the other cell of the
	// pair, and moves anywhere otherwise: each window the other side could
	// still fill then gets a stone of the side first, so the other side
	// never completes a line. A position with a pairing needs no moves
	// below it. Nil in a certificate without pairings.
	Pairings map[mnk.Position][]Pair
	// Matchings maps canonical positions, with either side to move, to a
	// set matching of the side (only in a strategy that does not lose):
	// disjoint blocks of two to eight empty cells, in the canonical
	// position's frame, such that every window of k cells free of the
	// side's stones can be given to a block holding two of its empty
	// cells or more, and in each block the side, answering every move of
	// the other there with one of its own there, takes a cell of each
	// window given to it (Verify checks this by playing each block's game
	// out; see checkMatching). A pairing is a matching of pairs. Nil in a
	// certificate without matchings.
	Matchings map[mnk.Position][][]int8
	// Parts maps canonical positions to strategies of the same side and
	// goal that play from them: where the strategy reaches a position of
	// Parts, it goes on as that part, which holds its own moves, pairings
	// and matchings and is checked on its own (parts hold no parts). A
	// strategy built by several workers is one in parts: the strategy of
	// O not to lose from the empty board, for instance, as a part from
	// each first move of X up to symmetry. Nil in a certificate without
	// parts.
	Parts map[mnk.Position]*Strategy
}

// A Pair is two cells of a pairing strategy.
type Pair [2]int8

// Side returns the strategy's side, "X" or "O".
func (s *Strategy) Side() string {
	if s.X {
		return "X"
	}
	return "O"
}

// Goal returns the strategy's goal, "win" or "not-lose".
func (s *Strategy) Goal() string {
	if s.Win {
		return "win"
	}
	return "not-lose"
}

// Size returns the number of moves the certificate holds.
func (c *Certificate) Size() int {
	return c.count(func(st *Strategy) int { return len(st.Moves) })
}

// Matchings returns the number of matchings the certificate holds.
func (c *Certificate) Matchings() int {
	return c.count(func(st *Strategy) int { return len(st.Matchings) })
}

// Pairings returns the number of pairings the certificate holds.
func (c *Certificate) Pairings() int {
	return c.count(func(st *Strategy) int { return len(st.Pairings) })
}

// Parts returns the number of parts the certificate's strategies hold.
func (c *Certificate) Parts() int {
	n := 0
	for _, st := range c.Strategies {
		n += len(st.Parts)
	}
	return n
}

// count sums f over the strategies and their parts.
func (c *Certificate) count(f func(*Strategy) int) int {
	n := 0
	for _, st := range c.Strategies {
		n += f(st)
		for _, part := range st.Parts {
			n += f(part)
		}
	}
	return n
}

// The first line of a certificate: version 1 holds moves only, version 2
// pairings too, version 3 relies on zones (Certificate.Zones) or holds
// matchings, version 4 holds strategies in parts. WriteTo
// writes the lowest version that holds the certificate, so that older
// builds read what they can check.
const (
	certificateMagic  = "wopr mnk certificate 1"
	certificateMagic2 = "wopr mnk certificate 2"
	certificateMagic3 = "wopr mnk certificate 3"
	certificateMagic4 = "wopr mnk certificate 4"
)

// WriteTo writes the certificate as text: a header (the game, the root as
// a board in the format of mnk.Game.String, the value), then each strategy with
// its moves and pairings, sorted by position, one line each: "X O cell" for
// a move, "X O pairs a-b c-d ..." for a pairing (the canonical position's
// bitboards in hexadecimal, cells as row*8+col in its frame).
func (c *Certificate) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	magic := certificateMagic
	switch {
	case c.Parts() > 0:
		magic = certificateMagic4
	case c.Zones || c.Matchings() > 0:
		magic = certificateMagic3
	case c.Pairings() > 0:
		magic = certificateMagic2
	}
	fmt.Fprintf(cw, "%s\ngame %s\nroot %s\nvalue %s\n", magic, c.Game.Spec(), c.Game.String(c.Root), c.Value)
	var line []byte
	for _, st := range c.Strategies {
		if len(st.Parts) == 0 {
			fmt.Fprintf(cw, "strategy %s %s %d\n", st.Side(), st.Goal(), st.entries())
		} else {
			fmt.Fprintf(cw, "strategy %s %s %d parts %d\n", st.Side(), st.Goal(), st.entries(), len(st.Parts))
		}
		line = st.writeEntries(cw, line)
		for _, k := range sortedKeys(st.Parts) {
			part := st.Parts[k]
			fmt.Fprintf(cw, "part %x %x %d\n", k.X, k.O, part.entries())
			line = part.writeEntries(cw, line)
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

// entries is the number of lines of the strategy's moves, pairings and
// matchings.
func (st *Strategy) entries() int { return len(st.Moves) + len(st.Pairings) + len(st.Matchings) }

// sortedKeys returns the positions of m, sorted.
func sortedKeys[V any](m map[mnk.Position]V) []mnk.Position {
	keys := make([]mnk.Position, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, comparePositions)
	return keys
}

// comparePositions orders positions by their bitboards, X's first.
func comparePositions(a, b mnk.Position) int {
	if c := cmp.Compare(a.X, b.X); c != 0 {
		return c
	}
	return cmp.Compare(a.O, b.O)
}

// writeEntries writes the strategy's moves, pairings and matchings, one
// line each sorted by position, with line as a buffer, which it returns.
func (st *Strategy) writeEntries(cw *countWriter, line []byte) []byte {
	keys := make([]mnk.Position, 0, st.entries())
	for k := range st.Moves {
		keys = append(keys, k)
	}
	for k := range st.Pairings {
		keys = append(keys, k)
	}
	for k := range st.Matchings {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, comparePositions)
	for _, k := range keys {
		line = strconv.AppendUint(line[:0], k.X, 16)
		line = append(line, ' ')
		line = strconv.AppendUint(line, k.O, 16)
		if m, ok := st.Moves[k]; ok {
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(m), 10)
		} else if blocks, ok := st.Matchings[k]; ok {
			line = append(line, " blocks"...)
			for _, b := range blocks {
				for i, c := range b {
					if i == 0 {
						line = append(line, ' ')
					} else {
						line = append(line, '-')
					}
					line = strconv.AppendInt(line, int64(c), 10)
				}
			}
		} else {
			line = append(line, " pairs"...)
			for _, pr := range st.Pairings[k] {
				line = append(line, ' ')
				line = strconv.AppendInt(line, int64(pr[0]), 10)
				line = append(line, '-')
				line = strconv.AppendInt(line, int64(pr[1]), 10)
			}
		}
		line = append(line, '\n')
		cw.Write(line)
	}
	return line
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// Read parses a certificate written by WriteTo. Errors name the
// line.
func Read(r io.Reader) (*Certificate, error) {
	lr := &lineReader{sc: bufio.NewScanner(r)}
	next, bad := lr.next, lr.bad
	header := func(name string) (string, error) {
		s, ok := next()
		if !ok {
			return "", bad("the file ends before its %q line", name)
		}
		v, found := strings.CutPrefix(s, name+" ")
		if !found {
			return "", bad("want %q, found %q", name+" ...", s)
		}
		return v, nil
	}
	magic, _ := next()
	if magic != certificateMagic && magic != certificateMagic2 && magic != certificateMagic3 && magic != certificateMagic4 {
		return nil, bad("not a wopr mnk certificate (want the line %q, %q, %q or %q)", certificateMagic, certificateMagic2, certificateMagic3, certificateMagic4)
	}
	spec, err := header("game")
	if err != nil {
		return nil, err
	}
	var rows, cols, k int
	if _, err := fmt.Sscanf(spec, "%d,%d,%d", &rows, &cols, &k); err != nil {
		return nil, bad("game %q: want rows,cols,k", spec)
	}
	g, err := mnk.New(rows, cols, k)
	if err != nil {
		return nil, bad("game %q: %v", spec, err)
	}
	c := &Certificate{Game: g, Zones: magic == certificateMagic3 || magic == certificateMagic4}
	board, err := header("root")
	if err != nil {
		return nil, err
	}
	if c.Root, err = g.Parse(board); err != nil {
		return nil, bad("root: %v", err)
	}
	value, err := header("value")
	if err != nil {
		return nil, err
	}
	switch value {
	case mnk.Win.String():
		c.Value = mnk.Win
	case mnk.Loss.String():
		c.Value = mnk.Loss
	case mnk.Drawn.String():
		c.Value = mnk.Drawn
	default:
		return nil, bad("value %q: want %s, %s or %s", value, mnk.Win, mnk.Drawn, mnk.Loss)
	}
	for {
		s, ok := next()
		if !ok {
			break
		}
		st, parts, err := lr.strategy(s, magic, true)
		if err != nil {
			return nil, err
		}
		if parts > 0 {
			st.Parts = make(map[mnk.Position]*Strategy, parts)
			for range parts {
				s, ok := next()
				if !ok {
					return nil, bad("the file ends before part %d of the strategy of %s", len(st.Parts)+1, st.Side())
				}
				var key mnk.Position
				var size int
				f := strings.Fields(s)
				if len(f) == 4 && f[0] == "part" {
					key.X, err = strconv.ParseUint(f[1], 16, 64)
					if err == nil {
						key.O, err = strconv.ParseUint(f[2], 16, 64)
					}
					if err == nil {
						size, err = strconv.Atoi(f[3])
					}
				}
				if len(f) != 4 || f[0] != "part" || err != nil || size < 0 {
					return nil, bad("want \"part X O N\" (hexadecimal bitboards, a size), found %q", s)
				}
				if _, dup := st.Parts[key]; dup {
					return nil, bad("a second part from the position %s %s", f[1], f[2])
				}
				part := &Strategy{X: st.X, Win: st.Win, Moves: make(map[mnk.Position]int8)}
				if err := lr.entries(part, size, magic); err != nil {
					return nil, err
				}
				st.Parts[key] = part
			}
		}
		c.Strategies = append(c.Strategies, st)
	}
	if err := lr.sc.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// WriteStrategy writes st, which has no parts, as WriteTo writes a
// strategy of a certificate: its line "strategy X|O win|not-lose N", then
// its moves, pairings and matchings. A worker sends a part of a strategy
// (Strategy.Parts) so.
func WriteStrategy(w io.Writer, st *Strategy) (int64, error) {
	if len(st.Parts) > 0 {
		return 0, errors.New("cert.WriteStrategy: a strategy in parts")
	}
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	fmt.Fprintf(cw, "strategy %s %s %d\n", st.Side(), st.Goal(), st.entries())
	st.writeEntries(cw, nil)
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

// ReadStrategy reads a strategy written by WriteStrategy. Errors name the
// line.
func ReadStrategy(r io.Reader) (*Strategy, error) {
	lr := &lineReader{sc: bufio.NewScanner(r)}
	next, bad := lr.next, lr.bad
	s, _ := next()
	st, _, err := lr.strategy(s, certificateMagic4, false)
	if err != nil {
		return nil, err
	}
	if s, ok := next(); ok {
		return nil, bad("want the end of the strategy, found %q", s)
	}
	return st, lr.sc.Err()
}

// lineReader reads the lines of a certificate, counting them for its
// errors.
type lineReader struct {
	sc   *bufio.Scanner
	line int
}

func (lr *lineReader) next() (string, bool) {
	if !lr.sc.Scan() {
		return "", false
	}
	lr.line++
	return lr.sc.Text(), true
}

// bad is an error at the current line.
func (lr *lineReader) bad(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", lr.line, fmt.Sprintf(format, args...))
}

// strategy reads a strategy from its line s, "strategy X|O win|not-lose
// N" or, if parts are allowed, "strategy X|O win|not-lose N parts P",
// and its N lines; it returns the strategy and P (its parts are left to
// read).
func (lr *lineReader) strategy(s, magic string, parts bool) (*Strategy, int, error) {
	f := strings.Fields(s)
	if (len(f) != 4 && (!parts || len(f) != 6 || f[4] != "parts")) || f[0] != "strategy" || (f[1] != "X" && f[1] != "O") || (f[2] != "win" && f[2] != "not-lose") {
		if !parts {
			return nil, 0, lr.bad("want \"strategy X|O win|not-lose N\", found %q", s)
		}
		return nil, 0, lr.bad("want \"strategy X|O win|not-lose N\" or \"strategy X|O win|not-lose N parts P\", found %q", s)
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 0 {
		return nil, 0, lr.bad("strategy size %q", f[3])
	}
	p := 0
	if len(f) == 6 {
		if p, err = strconv.Atoi(f[5]); err != nil || p < 1 {
			return nil, 0, lr.bad("number of parts %q", f[5])
		}
		if magic != certificateMagic4 {
			return nil, 0, lr.bad("a strategy in parts in a certificate of version %s (its first line says %q)", magic[len(magic)-1:], magic)
		}
	}
	st := &Strategy{X: f[1] == "X", Win: f[2] == "win", Moves: make(map[mnk.Position]int8)}
	return st, p, lr.entries(st, n, magic)
}

// entries reads the n lines of moves, pairings and matchings of st.
func (lr *lineReader) entries(st *Strategy, n int, magic string) error {
	next, bad := lr.next, lr.bad
	for range n {
		s, ok := next()
		if !ok {
			return bad("the file ends inside the strategy of %s", st.Side())
		}
		f := strings.Fields(s)
		var p mnk.Position
		var err error
		if len(f) >= 3 {
			p.X, err = strconv.ParseUint(f[0], 16, 64)
			if err == nil {
				p.O, err = strconv.ParseUint(f[1], 16, 64)
			}
		}
		if len(f) < 3 || err != nil {
			return bad("want \"X O cell\", \"X O pairs a-b ...\" or \"X O blocks a-b-c ...\" (hexadecimal bitboards, cells), found %q", s)
		}
		if st.has(p) {
			return bad("a second line for the position %s %s", f[0], f[1])
		}
		switch f[2] {
		case "blocks":
			if magic != certificateMagic3 && magic != certificateMagic4 {
				return bad("a matching in a certificate of version 1 or 2 (its first line says %q)", magic)
			}
			blocks := make([][]int8, len(f)-3)
			for i, t := range f[3:] {
				for _, cs := range strings.Split(t, "-") {
					c, err := strconv.Atoi(cs)
					if err != nil || c < 0 || c > 63 {
						return bad("block %q: want cells a-b-c..., each row*8+col", t)
					}
					blocks[i] = append(blocks[i], int8(c))
				}
			}
			if st.Matchings == nil {
				st.Matchings = map[mnk.Position][][]int8{}
			}
			st.Matchings[p] = blocks
		case "pairs":
			if magic == certificateMagic {
				return bad("a pairing in a certificate of version 1 (its first line says %q)", magic)
			}
			pairs := make([]Pair, len(f)-3)
			for i, t := range f[3:] {
				a, b, found := strings.Cut(t, "-")
				ca, errA := strconv.Atoi(a)
				cb, errB := strconv.Atoi(b)
				if !found || errA != nil || errB != nil || ca < 0 || ca > 63 || cb < 0 || cb > 63 {
					return bad("pair %q: want two cells a-b, each row*8+col", t)
				}
				pairs[i] = Pair{int8(ca), int8(cb)}
			}
			if st.Pairings == nil {
				st.Pairings = map[mnk.Position][]Pair{}
			}
			st.Pairings[p] = pairs
		default:
			cell, err := strconv.Atoi(f[2])
			if len(f) != 3 || err != nil || cell < 0 || cell > 63 {
				return bad("want \"X O cell\" (hexadecimal bitboards, a cell), found %q", s)
			}
			st.Moves[p] = int8(cell)
		}
	}
	return nil
}

// ErrTooBig is the error of a certificate that would visit more
// positions than allowed.
var ErrTooBig = errors.New("certificate too big")

// ErrInvalid is the error of a certificate that does not prove what it
// claims.
var ErrInvalid = errors.New("the certificate does not prove its value")

// Verify checks that the certificate proves its value: that it holds the
// strategies the value needs, and that each, played from the root against
// every reply of the other side, only ever reaches positions where its side
// won (a winning strategy) or where the game is won by its side or drawn (a
// strategy that does not lose). A strategy that does not lose may also
// reach a position where the other side cannot complete a line any more,
// because each window free of the side's stones lacks more stones of the
// other than it has moves left, or a position where the certificate gives
// a pairing of the side, which Verify checks to cover every window free of
// the side's stones. A strategy that does not lose need not answer a move
// of the other side outside the zone of one it answers (Zones, zones.go):
// Verify computes the zones from the strategy, by its own rules. It plays
// by rules of its own (see rules), not by the engines' that found the
// strategies, which use package mnk's. It returns the number of positions
// it visited.
func (c *Certificate) Verify(ctx context.Context) (int, error) {
	n, _, err := c.check(ctx, nil)
	return n, err
}

// A Chooser makes a strategy's choice at p, a canonical position (see
// mnk.Game.Canonical) that Build reaches with the game going on and the
// other side not yet hopeless, and for which st holds nothing: it adds p
// to st.Moves where st's side is to move, or to st.Pairings or
// st.Matchings (a strategy that does not lose, either side to move), or,
// where the other side is to move, may add nothing, and Build then
// follows the other side's moves. Cells are in p's frame.
type Chooser func(st *Strategy, p mnk.Position) error

// Build completes the strategies of c (empty ones, from New, or partial)
// by playing them out as Verify does and asking choose for the choice at
// each position they reach that they hold none for. As it computes the
// zones as it goes, it never asks below a move of the other side that the
// zones answer: the strategies hold only what Verify reaches (Prune would
// remove nothing), and a solver proves only the positions a certificate
// needs. It returns the positions visited, and an error where a choice
// does not keep its strategy's goal (ErrInvalid) or where choose fails.
// Build checks what Verify checks, but a certificate is trusted once
// Verify, without a chooser, accepts it.
func (c *Certificate) Build(ctx context.Context, choose Chooser) (int, error) {
	n, checked, err := c.check(ctx, choose)
	if err != nil {
		return n, err
	}
	c.Zones = false
	for _, v := range checked {
		c.Zones = c.Zones || v.skipped > 0
	}
	return n, nil
}

// has reports whether st holds a choice at p.
func (st *Strategy) has(p mnk.Position) bool {
	if _, ok := st.Moves[p]; ok {
		return true
	}
	if _, ok := st.Pairings[p]; ok {
		return true
	}
	_, ok := st.Matchings[p]
	return ok
}

// Prune removes from the strategies the positions that Verify does not
// reach, those below the moves it need not follow because of the zones,
// and returns how many it removed; Zones then says whether the
// certificate relies on them. A certificate that does not verify is left
// as it was, with Verify's error.
func (c *Certificate) Prune(ctx context.Context) (int, error) {
	_, checked, err := c.check(ctx, nil)
	if err != nil {
		return 0, err
	}
	removed := 0
	c.Zones = false
	for _, v := range checked {
		removed += v.keepChecked()
		c.Zones = c.Zones || v.skipped > 0
	}
	return removed, nil
}

// keepChecked deletes from the strategy the positions and parts that v
// did not check, and returns how many.
func (v *verifier) keepChecked() int {
	st := v.st
	n := keepChecked(st.Moves, v.zones) + keepChecked(st.Pairings, v.zones) + keepChecked(st.Matchings, v.zones)
	used := map[*Strategy]bool{}
	for _, pv := range v.parts {
		used[pv.st] = true
		n += pv.keepChecked()
	}
	for k, part := range st.Parts {
		if !used[part] {
			delete(st.Parts, k)
			n += part.entries()
		}
	}
	return n
}

// keepChecked deletes from m the positions that checked lacks, and
// returns how many.
func keepChecked[V any](m map[mnk.Position]V, checked map[mnk.Position]uint64) int {
	n := 0
	for k := range m {
		if _, ok := checked[k]; !ok {
			delete(m, k)
			n++
		}
	}
	return n
}

// check is Verify, which also returns the verifier of each strategy it
// checked; with choose, Build.
func (c *Certificate) check(ctx context.Context, choose Chooser) (int, []*verifier, error) {
	g := c.Game
	r := newRules(g.Rows, g.Cols, g.K)
	if err := r.root(c.Root); err != nil {
		return 0, nil, fmt.Errorf("root %s: %v: %w", g.String(c.Root), err, ErrInvalid)
	}
	xToMove := c.Root.XToMove()
	var need []Strategy
	switch c.Value {
	case mnk.Win:
		need = []Strategy{{X: xToMove, Win: true}}
	case mnk.Loss:
		need = []Strategy{{X: !xToMove, Win: true}}
	default:
		need = []Strategy{{X: true}, {X: false}}
	}
	visited := 0
	var checked []*verifier
	for _, want := range need {
		var st *Strategy
		for _, s := range c.Strategies {
			if s.X == want.X && s.Win == want.Win {
				st = s
			}
		}
		if st == nil {
			return visited, nil, fmt.Errorf("a value %s needs a strategy of %s to %s, which it lacks: %w", c.Value, want.Side(), want.Goal(), ErrInvalid)
		}
		v, err := checkStrategy(ctx, g, r, c.Root, st, choose)
		visited += v.visited
		if err != nil {
			return visited, nil, err
		}
		checked = append(checked, v)
	}
	return visited, checked, nil
}

// checkStrategy checks st from root, a position r.root accepts, with
// choose as Build's.
func checkStrategy(ctx context.Context, g *mnk.Game, r *rules, root mnk.Position, st *Strategy, choose Chooser) (*verifier, error) {
	v := &verifier{g: g, r: r, st: st, choose: choose, zones: map[mnk.Position]uint64{}}
	if err := winLeaves(st); err != nil {
		return v, err
	}
	_, err := v.walk(ctx, root, mnk.Ongoing)
	return v, err
}

// winLeaves refuses a strategy to win that holds pairings or matchings.
func winLeaves(st *Strategy) error {
	if st.Win && len(st.Pairings)+len(st.Matchings) > 0 {
		return fmt.Errorf("the strategy of %s to win holds pairings or matchings, which only keep the other side from winning: %w", st.Side(), ErrInvalid)
	}
	return nil
}

// CheckStrategy checks st, a strategy of g, from root as Verify checks a
// certificate's strategies, and returns the positions it visited and
// whether st relies on zones. With choose, it completes st as Build does.
// A worker builds a part of a strategy so (see Strategy.Parts).
func CheckStrategy(ctx context.Context, g *mnk.Game, root mnk.Position, st *Strategy, choose Chooser) (visited int, zones bool, err error) {
	r := newRules(g.Rows, g.Cols, g.K)
	if err := r.root(root); err != nil {
		return 0, false, fmt.Errorf("root %s: %v: %w", g.String(root), err, ErrInvalid)
	}
	v, err := checkStrategy(ctx, g, r, root, st, choose)
	return v.visited, v.skipped > 0, err
}

// Lines returns every line of k cells of the rows x cols board, in the
// four directions, as a set of cells (row*8+col). The verifier builds its
// own instead of reading the Game's windows, which the engines use.
func Lines(rows, cols, k int) []uint64 {
	var lines []uint64
	for r := range rows {
		for c := range cols {
			for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				var w uint64
				for i := range k {
					rr, cc := r+i*d[0], c+i*d[1]
					if rr < 0 || rr >= rows || cc < 0 || cc >= cols {
						w = 0
						break
					}
					w |= 1 << uint(rr*8+cc)
				}
				if w != 0 {
					lines = append(lines, w)
				}
			}
		}
	}
	return lines
}

// Hopeless reports whether the attacker (stones att) can no longer
// complete a line against the defender (stones def) however both play:
// each line free of the defender's stones lacks more attacker stones than
// the attacker will still place, half the empty cells, rounded up if it is
// to move. (Also when no such line is left.)
func Hopeless(lines []uint64, k int, att, def, empty uint64, attToMove bool) bool {
	e := bits.OnesCount64(empty)
	moves := e / 2
	if attToMove {
		moves = (e + 1) / 2
	}
	for _, w := range lines {
		if w&def == 0 && k-bits.OnesCount64(w&att) <= moves {
			return false
		}
	}
	return true
}

type verifier struct {
	g       *mnk.Game // for the text of boards in messages
	r       *rules
	st      *Strategy
	choose  Chooser                 // Build's, nil in Verify
	zones   map[mnk.Position]uint64 // canonical positions already checked: their zones, in their frame
	visited int
	skipped int         // moves not followed, outside a zone
	parts   []*verifier // of the parts of st it checked
}

// leafError is the error of the pairing or matching (kind) of the
// strategy's side at p that the check refuses, saying why.
func (v *verifier) leafError(kind string, p mnk.Position, format string, args ...any) error {
	return fmt.Errorf("the %s of %s at %s (a position up to symmetry, cells in its frame) %s: %w",
		kind, v.st.Side(), v.g.String(p), fmt.Sprintf(format, args...), ErrInvalid)
}

// cellName is a cell as "row,col".
func cellName(c int) string { return fmt.Sprintf("%d,%d", c/8, c%8) }

// checkPairing returns nil if pairs is a pairing of the strategy's side at
// p: pairs of two distinct empty cells of the board, no cell in two pairs,
// and both cells of some pair on every line free of the side's stones.
// Then the side does not lose from p: answering a move of the other side
// on a cell of a pair with the other cell (still empty, as the pairs are
// disjoint and the side's other moves only put more of its stones on
// lines), every line the other side could fill holds a cell the side takes
// first.
func (v *verifier) checkPairing(p mnk.Position, pairs []Pair) error {
	def := v.def(p)
	empty := v.r.mask &^ (p.X | p.O)
	fail := func(format string, args ...any) error { return v.leafError("pairing", p, format, args...) }
	var used uint64
	cells := make([]uint64, len(pairs))
	for i, pr := range pairs {
		for _, c := range pr {
			if c < 0 || c > 63 {
				return fail("pairs the cell %d, which is not a cell", c)
			}
			if empty>>uint(c)&1 == 0 {
				return fail("pairs the cell %s, which is not an empty cell of the board", cellName(int(c)))
			}
			if used>>uint(c)&1 != 0 {
				return fail("uses the cell %s twice", cellName(int(c)))
			}
			used |= 1 << uint(c)
			cells[i] |= 1 << uint(c)
		}
	}
	for _, w := range v.r.lines {
		if w&def != 0 {
			continue
		}
		covered := false
		for _, pc := range cells {
			if w&pc == pc {
				covered = true
				break
			}
		}
		if !covered {
			first, last := bits.TrailingZeros64(w), 63-bits.LeadingZeros64(w)
			if w&(w-1) == 0 {
				return fail("leaves the line at %s without a pair", cellName(first))
			}
			return fail("leaves the line from %s to %s without a pair", cellName(first), cellName(last))
		}
	}
	return nil
}

// walk checks the strategy from p, reached with result r, and returns a
// zone of p (in p's frame) for a strategy that does not lose: a set of
// p's empty cells such that the strategy still keeps the other side from
// completing a line from p with any extra stones of the other side on
// empty cells outside it (see Zones). Each position is checked once, up to
// symmetry, and in its canonical frame.
func (v *verifier) walk(ctx context.Context, p mnk.Position, r mnk.Result) (uint64, error) {
	g, st := v.g, v.st
	switch r {
	case mnk.XWin, mnk.OWin:
		if (r == mnk.XWin) == st.X {
			if st.Win {
				return 0, nil
			}
			return WonZone(v.r.lines, v.def(p), v.r.mask&^(p.X|p.O)), nil
		}
		return 0, fmt.Errorf("the strategy of %s to %s loses at %s: %w", st.Side(), st.Goal(), g.String(p), ErrInvalid)
	case mnk.Draw:
		if !st.Win {
			return 0, nil // no empty cell
		}
		return 0, fmt.Errorf("the strategy of %s to win draws at %s: %w", st.Side(), g.String(p), ErrInvalid)
	}
	key, sym := v.r.canonical(p)
	if z, ok := v.zones[key]; ok {
		return v.r.unmap(sym, z), nil
	}
	if part, ok := st.Parts[key]; ok {
		z, err := v.part(ctx, key, part)
		if err != nil {
			return 0, err
		}
		v.zones[key] = z
		return v.r.unmap(sym, z), nil
	}
	if v.visited++; v.visited&0xffff == 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	z, err := v.node(ctx, key)
	if err != nil {
		return 0, err
	}
	v.zones[key] = z
	return v.r.unmap(sym, z), nil
}

// part checks the strategy from p, a canonical position of a game not
// over, as its part from p, with a verifier of the part's own, and
// returns p's zone.
func (v *verifier) part(ctx context.Context, p mnk.Position, part *Strategy) (uint64, error) {
	if part.X != v.st.X || part.Win != v.st.Win || len(part.Parts) > 0 {
		return 0, fmt.Errorf("the part from %s of the strategy of %s to %s is not one of %s to %s without parts: %w",
			v.g.String(p), v.st.Side(), v.st.Goal(), part.Side(), part.Goal(), ErrInvalid)
	}
	if err := winLeaves(part); err != nil {
		return 0, fmt.Errorf("the part from %s: %w", v.g.String(p), err)
	}
	pv := &verifier{g: v.g, r: v.r, st: part, choose: v.choose, zones: map[mnk.Position]uint64{}}
	z, err := pv.node(ctx, p)
	pv.zones[p] = z
	v.visited += pv.visited + 1
	v.skipped += pv.skipped
	v.parts = append(v.parts, pv)
	return z, err
}

// def returns the stones of the strategy's side.
func (v *verifier) def(p mnk.Position) uint64 {
	if v.st.X {
		return p.X
	}
	return p.O
}

// node checks the strategy from p, a canonical position of a game not
// over, and returns p's zone (walk).
func (v *verifier) node(ctx context.Context, p mnk.Position) (uint64, error) {
	g, st := v.g, v.st
	empty := v.r.mask &^ (p.X | p.O)
	if !st.Win {
		me, them := p.X, p.O
		if !st.X {
			me, them = them, me
		}
		if Hopeless(v.r.lines, v.r.k, them, me, empty, p.XToMove() != st.X) {
			return HopelessZone(v.r.lines, me, empty), nil
		}
	}
	if v.choose != nil && !st.has(p) {
		if err := v.choose(st, p); err != nil {
			return 0, err
		}
	}
	if !st.Win {
		if pairs, found := st.Pairings[p]; found {
			if err := v.checkPairing(p, pairs); err != nil {
				return 0, err
			}
			var z uint64
			for _, pr := range pairs {
				z |= 1<<uint(pr[0]) | 1<<uint(pr[1])
			}
			return z, nil
		}
		if blocks, found := st.Matchings[p]; found {
			return v.checkMatching(p, blocks)
		}
	}
	if p.XToMove() == st.X {
		m, found := st.Moves[p]
		if !found {
			return 0, fmt.Errorf("the strategy of %s to %s has no move at %s: %w", st.Side(), st.Goal(), g.String(p), ErrInvalid)
		}
		cell := int(m)
		if cell < 0 || cell > 63 || empty>>uint(cell)&1 == 0 {
			return 0, fmt.Errorf("the strategy of %s to %s plays on a taken or missing cell at %s: %w", st.Side(), st.Goal(), g.String(p), ErrInvalid)
		}
		q, res := v.r.play(p, cell)
		z, err := v.walk(ctx, q, res)
		return z | 1<<uint(cell), err
	}
	// Every move of the other side, in the order of the cells: a move
	// outside the zone of one already followed needs no play of its own
	// (Zones); the others are followed. A winning strategy follows them
	// all.
	var zone uint64
	keep := ^uint64(0) // the cells in the zone of every move followed
	for e := empty; e != 0; e &= e - 1 {
		c := bits.TrailingZeros64(e)
		if !st.Win && keep>>uint(c)&1 == 0 {
			v.skipped++
			if onSkip != nil {
				onSkip(p, c, st.X)
			}
			continue
		}
		q, res := v.r.play(p, c)
		z, err := v.walk(ctx, q, res)
		if err != nil {
			return 0, err
		}
		keep &= z
		zone |= z | 1<<uint(c)
	}
	return zone, nil
}

// New returns the certificate of root's value v with the
// strategies that prove it, empty: the winner's, or each side's for a
// draw.
func New(g *mnk.Game, root mnk.Position, v mnk.Value) *Certificate {
	c := &Certificate{Game: g, Root: root, Value: v}
	xToMove := root.XToMove()
	switch v {
	case mnk.Win:
		c.Strategies = []*Strategy{{X: xToMove, Win: true}}
	case mnk.Loss:
		c.Strategies = []*Strategy{{X: !xToMove, Win: true}}
	default:
		c.Strategies = []*Strategy{{X: true}, {X: false}}
	}
	return c
}
