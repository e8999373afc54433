package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file is a test referee for the first-triple protocol, written from
// the protocol's description with its own board (no engine code). It plays
// a random player against the agent and judges every reply: one line
// holding a cell 1-9, empty, in the board asked for, within the clock of
// the rules (30 s a game, 2 s more a move). It can frame its messages in
// the ways a careless or hostile referee does (split at any byte, batched,
// CRLF or no line end, stray spaces and tabs, blank lines, malformed lines)
// and close the connection at any point. Everything it does is drawn from
// a seeded generator and the agent searches a fixed number of nodes a
// move, so a session is the same on any machine.

// testConfig is the agent of the referee tests: a few thousand nodes a
// move (a millisecond or so), so that the games do not depend on the
// machine's speed.
func testConfig() Config { return Config{MoveNodes: 2000, TTBits: 14} }

// refGame is the referee's board: cells[board][cell] is 0, 'x' or 'o'.
type refGame struct {
	cells [9][9]byte
	next  int // board the player to move must play in
}

var refLines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

// play puts p in (b, c) and says whether the game is over: "triple" when p
// has three in a row in board b, "full_board" when the board c the
// opponent is sent to has no empty cell.
func (g *refGame) play(p byte, b, c int) string {
	g.cells[b][c] = p
	for _, l := range refLines {
		if g.cells[b][l[0]] == p && g.cells[b][l[1]] == p && g.cells[b][l[2]] == p {
			return "triple"
		}
	}
	g.next = c
	for _, v := range g.cells[c] {
		if v == 0 {
			return ""
		}
	}
	return "full_board"
}

func (g *refGame) random(rng *rand.Rand) int {
	var empty []int
	for c, v := range g.cells[g.next] {
		if v == 0 {
			empty = append(empty, c)
		}
	}
	return empty[rng.IntN(len(empty))]
}

// malformedLines are lines the agent must count as malformed (once each)
// and skip, in any state: unknown or misspelt names, bad or missing
// arguments, broken parentheses, bytes that are not text, a line too long.
// Each ends with its line end: a line with an unclosed parenthesis would
// take the next message with it otherwise.
var malformedLines = []string{
	"hello world.",
	"start(z).",
	"start().",
	"start(x,o).",
	"second_move(5,).",
	"second_move(10,3).",
	"second_move(0,3).",
	"second_move(a,b).",
	"second_move(5,3,1).",
	"second_move(5;3).",
	"second_move(5,3",
	"third_move(1,2).",
	"third_move(1,2,3,4).",
	"next_move().",
	"next_move( ).",
	"next_move(0).",
	"next_move(99).",
	"next_move(-1).",
	"next_move(3.5).",
	"next_move(1,2).",
	"next_move(3)x.",
	"next_move(3)(4).",
	"next_move(3)).",
	"next_move((3)).",
	"next_move)3(.",
	"next_move(99999999999999999999).",
	"next_move(３).",
	"NEXT_MOVE(3).",
	"next-move(3).",
	"last_move(x).",
	"unknown_message.",
	"(((.",
	").",
	"\x00\xff\xfe.",
	"draw(",
	strings.Repeat("x", 5000) + ".",
	"next_move(" + strings.Repeat("7", 300) + ").",
}

// style is how a referee frames its messages on the wire.
type style struct {
	split     int     // 0: a flush is one write; 1: writes of 1 to 8 bytes; 2: one byte a write
	batch     bool    // messages wait for the next request or the end, then go in one flush
	eol       int     // 0: "\n"; 1: "\r\n"; 2: none (the '.' ends a message); 3: any of these
	spaces    bool    // stray spaces and tabs where the protocol allows them, and blank lines
	malformed float64 // chance of a malformed line before each message
	// direct: the referee writes from its own goroutine, one write at a
	// time (with eol 2 only: a line end after a request would wait for
	// the reply the referee has not read yet). Otherwise a writer
	// goroutine writes, so that no flush waits for an agent that waits to
	// send its reply.
	direct bool
}

// tally is what the referee saw.
type tally struct {
	games, agentWins, draws, agentLosses int
	plies, replies                       int
	malformed                            int
	kinds                                map[int]bool // malformedLines used
	bytes                                int          // written to the agent
	messageEnds, requestEnds             []int        // where each message, each request ends in the stream
	problems                             []string     // illegal, late or garbled replies
	slowest                              time.Duration
}

func (t *tally) add(o tally) {
	t.games += o.games
	t.agentWins += o.agentWins
	t.draws += o.draws
	t.agentLosses += o.agentLosses
	t.plies += o.plies
	t.replies += o.replies
	t.malformed += o.malformed
	t.bytes += o.bytes
	t.problems = append(t.problems, o.problems...)
	t.slowest = max(t.slowest, o.slowest)
	for k := range o.kinds {
		if t.kinds == nil {
			t.kinds = map[int]bool{}
		}
		t.kinds[k] = true
	}
}

// errCut ends a referee that closed the connection on purpose.
var errCut = errors.New("referee closed the connection")

// referee plays one session on conn.
type referee struct {
	conn  net.Conn
	rng   *rand.Rand
	style style
	// cutAt, if >= 0, closes the connection once that many bytes have
	// been written (cutAfterReply: after the reply to the request that
	// ends there has been read, not before).
	cutAt         int
	cutAfterReply bool

	r       *bufio.Reader
	pending []byte      // batched, not yet flushed
	writes  chan []byte // to the writer; nil closes the connection
	wrote   chan error  // the writer's end
	tally   tally
	clock   time.Duration // left in this game
}

const (
	gameClock = 30 * time.Second
	increment = 2 * time.Second
	// hang is how long the referee waits for a reply or for the agent
	// to return before calling it a hang: no move takes a thousandth of
	// it.
	hang = time.Minute
)

// newReferee returns a referee on conn, with its writer started unless
// the style writes directly. It reads replies only when it asks for one:
// an agent that sends what was not asked for finds nobody reading.
func newReferee(conn net.Conn, seed uint64, st style) *referee {
	ref := &referee{conn: conn, r: bufio.NewReader(conn), rng: rand.New(rand.NewPCG(seed, 99)), style: st, cutAt: -1}
	if st.direct {
		return ref
	}
	ref.writes, ref.wrote = make(chan []byte, 1<<16), make(chan error, 1)
	go func() {
		for b := range ref.writes {
			if b == nil {
				ref.wrote <- conn.Close()
				return
			}
			if _, err := conn.Write(b); err != nil {
				ref.wrote <- err
				for range ref.writes {
				}
				return
			}
		}
		ref.wrote <- nil
	}()
	return ref
}

func (ref *referee) write(b []byte) error {
	if !ref.style.direct {
		ref.writes <- b
		return nil
	}
	ref.conn.SetWriteDeadline(time.Now().Add(hang))
	_, err := ref.conn.Write(b)
	return err
}

func (ref *referee) close() {
	if ref.style.direct {
		ref.conn.Close()
		return
	}
	ref.writes <- nil
}

// dress writes msg ("name(args)") with the style's spaces.
func (ref *referee) dress(msg string) string {
	if !ref.style.spaces || ref.rng.IntN(2) == 0 {
		return msg
	}
	ws := func() string {
		return [...]string{"", "", " ", "  ", "\t", " \t "}[ref.rng.IntN(6)]
	}
	var b strings.Builder
	b.WriteString(ws())
	for _, c := range msg {
		switch c {
		case '(', ',':
			b.WriteString(ws())
			b.WriteRune(c)
			b.WriteString(ws())
		case ')':
			b.WriteString(ws())
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteString(ws())
	return b.String()
}

func (ref *referee) eol() string {
	e := ref.style.eol
	if e == 3 {
		e = ref.rng.IntN(3)
	}
	return [...]string{"\n", "\r\n", ""}[e]
}

// send queues msg (without its '.'), maybe after a malformed line or a
// blank one, and flushes unless the style batches.
func (ref *referee) send(msg string) error {
	if ref.style.malformed > 0 && ref.rng.Float64() < ref.style.malformed {
		k := ref.rng.IntN(len(malformedLines))
		if ref.tally.kinds == nil {
			ref.tally.kinds = map[int]bool{}
		}
		ref.tally.kinds[k] = true
		ref.tally.malformed++
		end := "\n"
		if ref.style.eol%2 == 1 && ref.rng.IntN(2) == 0 {
			end = "\r\n"
		}
		ref.pending = append(ref.pending, malformedLines[k]+end...)
	}
	if ref.style.spaces && ref.rng.IntN(8) == 0 {
		ref.pending = append(ref.pending, [...]string{"\n", "\r\n", "  \n", "\t\r\n", " . \n"}[ref.rng.IntN(5)]...)
	}
	ref.pending = append(ref.pending, ref.dress(msg)+"."+ref.eol()...)
	ref.tally.messageEnds = append(ref.tally.messageEnds, ref.tally.bytes+len(ref.pending))
	if ref.style.batch {
		return nil
	}
	return ref.flush()
}

// flush writes what is pending in the style's pieces, closing the
// connection where the cut falls.
func (ref *referee) flush() error {
	b := ref.pending
	ref.pending = nil
	for len(b) > 0 {
		n := len(b)
		switch ref.style.split {
		case 1:
			n = min(n, 1+ref.rng.IntN(8))
		case 2:
			n = 1
		}
		if ref.cutAt >= 0 && ref.tally.bytes+n >= ref.cutAt && !ref.cutAfterReply {
			if n = ref.cutAt - ref.tally.bytes; n > 0 {
				if err := ref.write(b[:n:n]); err != nil {
					return err
				}
				ref.tally.bytes += n
			}
			ref.close()
			return errCut
		}
		if err := ref.write(b[:n:n]); err != nil {
			return err
		}
		ref.tally.bytes += n
		b = b[n:]
	}
	return nil
}

// ask sends a move request and returns the agent's cell, or -1 with the
// problem noted.
func (ref *referee) ask(g *refGame, msg string) (int, error) {
	if err := ref.send(msg); err != nil {
		return 0, err
	}
	if err := ref.flush(); err != nil {
		return 0, err
	}
	ref.tally.requestEnds = append(ref.tally.requestEnds, ref.tally.bytes)
	start := time.Now()
	ref.conn.SetReadDeadline(start.Add(hang))
	line, err := ref.r.ReadString('\n')
	took := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("no reply to %s: %w", msg, err)
	}
	ref.tally.replies++
	ref.tally.slowest = max(ref.tally.slowest, took)
	if ref.cutAfterReply && ref.tally.bytes == ref.cutAt {
		ref.close()
		return 0, errCut
	}
	ref.clock -= took
	switch {
	case len(line) != 2 || line[0] < '1' || line[0] > '9' || line[1] != '\n':
		ref.tally.problems = append(ref.tally.problems, fmt.Sprintf("reply %q to %s", line, msg))
	case g.cells[g.next][line[0]-'1'] != 0:
		ref.tally.problems = append(ref.tally.problems, fmt.Sprintf("illegal move %s to %s: board %d cell %c is taken", strings.TrimSpace(line), msg, g.next+1, line[0]))
	case ref.clock < 0:
		ref.tally.problems = append(ref.tally.problems, fmt.Sprintf("out of time after %s", msg))
	default:
		ref.clock += increment
		return int(line[0] - '1'), nil
	}
	return -1, nil
}

// playGame plays one game with the agent as X (agentX) or O.
func (ref *referee) playGame(agentX bool) error {
	var g refGame
	ref.clock = gameClock
	agent, other := byte('o'), byte('x')
	start := "start(o)"
	if agentX {
		agent, other, start = 'x', 'o', "start(x)"
	}
	if err := ref.send(start); err != nil {
		return err
	}
	// The referee makes X's first move (and O's reply to it).
	b, c := ref.rng.IntN(9), ref.rng.IntN(9)
	g.play('x', b, c)
	plies := 1
	req := fmt.Sprintf("second_move(%d,%d)", b+1, c+1)
	if agentX {
		d := g.random(ref.rng)
		g.play('o', c, d)
		plies++
		req = fmt.Sprintf("third_move(%d,%d,%d)", b+1, c+1, d+1)
	}
	result := func(msg string, winner byte) error {
		ref.tally.games++
		ref.tally.plies += plies
		switch winner {
		case agent:
			ref.tally.agentWins++
		case other:
			ref.tally.agentLosses++
		default:
			ref.tally.draws++
		}
		return ref.send(msg)
	}
	for {
		cell, err := ref.ask(&g, req)
		if err != nil {
			return err
		}
		if cell < 0 {
			return result("loss(illegal_move)", other)
		}
		plies++
		if end := g.play(agent, g.next, cell); end != "" {
			if end == "triple" {
				return result("win(triple)", agent)
			}
			return result("draw(full_board)", 0)
		}
		reply := g.random(ref.rng)
		plies++
		switch end := g.play(other, g.next, reply); end {
		case "triple", "full_board":
			if err := ref.send(fmt.Sprintf("last_move(%d)", reply+1)); err != nil {
				return err
			}
			if end == "triple" {
				return result("loss(triple)", other)
			}
			return result("draw(full_board)", 0)
		}
		req = fmt.Sprintf("next_move(%d)", reply+1)
	}
}

// session plays games games (the agent's seat alternating, from X if
// firstX) and sends end; it returns the first error of the referee's own
// (errCut when it closed the connection as told).
func (ref *referee) session(games int, firstX bool) error {
	if err := ref.send("init"); err != nil {
		return err
	}
	for i := range games {
		if err := ref.playGame(firstX == (i%2 == 0)); err != nil {
			return err
		}
	}
	if err := ref.send("end"); err != nil {
		return err
	}
	return ref.flush()
}

// finish, once the agent has returned, waits for the writer to deliver
// everything, reads anything the agent wrote that was not asked for and
// closes the connection.
func (ref *referee) finish() (extra []string, err error) {
	defer ref.conn.Close()
	if !ref.style.direct {
		close(ref.writes)
		select {
		case err = <-ref.wrote:
		case <-time.After(hang):
			return nil, fmt.Errorf("the agent did not read the referee's messages within %v", hang)
		}
	}
	ref.conn.SetReadDeadline(time.Now().Add(hang))
	for {
		line, rerr := ref.r.ReadString('\n')
		if line != "" {
			extra = append(extra, line)
		}
		if rerr != nil {
			return extra, err
		}
	}
}

// outcome is what one session gave.
type outcome struct {
	tally tally
	stats Stats
	err   error // the agent's
	extra []string
	fail  error // the referee's: a hang or a session that broke off
}

// playPipe runs an agent with cfg on one end of a net.Pipe (which hands
// each write to the reader as it was written, so the agent sees every
// split) and the referee on the other.
func playPipe(ctx context.Context, seed uint64, st style, games int, firstX bool, cfg Config) outcome {
	a, b := net.Pipe()
	type result struct {
		stats Stats
		err   error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Run(ctx, a, cfg)
		a.Close()
		done <- result{s, err}
	}()
	ref := newReferee(b, seed, st)
	var o outcome
	o.fail = ref.session(games, firstX)
	select {
	case r := <-done:
		o.stats, o.err = r.stats, r.err
	case <-time.After(hang):
		b.Close()
		o.fail = errors.Join(o.fail, fmt.Errorf("the agent still runs %v after the session ended", hang))
		<-done
	}
	var err error
	o.extra, err = ref.finish()
	if err != nil && !errors.Is(err, io.ErrClosedPipe) {
		o.fail = errors.Join(o.fail, err)
	}
	o.tally = ref.tally
	return o
}

// TestHostileReferee plays sessions whose referee frames its messages in
// every way the protocol allows and some it does not: each message in one
// write, split at random bytes, or one byte a write; one message a flush
// or batched up to the next request (a result, the next start and the
// first request in one write); "\n", "\r\n" or no line end; stray spaces,
// tabs and blank lines; and malformed lines of every kind in
// malformedLines before one message in five. In every session the agent
// answers every request with one line holding a legal cell, sends nothing
// else, counts each malformed line once, never falls out of sync, agrees
// with the referee on every game's result and returns cleanly after end;
// it wins every game against the random player.
func TestHostileReferee(t *testing.T) {
	games := 12 // per session
	if testing.Short() {
		games = 4
	}
	var styles []style
	for split := range 3 {
		for _, batch := range []bool{false, true} {
			for eol := range 4 {
				for _, spaces := range []bool{false, true} {
					styles = append(styles, style{split: split, batch: batch, eol: eol, spaces: spaces, malformed: 0.2})
				}
			}
		}
	}
	outcomes := make([]outcome, len(styles))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, st := range styles {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			outcomes[i] = playPipe(context.Background(), uint64(i), st, games, i%2 == 0, testConfig())
		})
	}
	wg.Wait()
	var sum tally
	for i, o := range outcomes {
		st := styles[i]
		sum.add(o.tally)
		if o.fail != nil || o.err != nil || len(o.extra) > 0 || len(o.tally.problems) > 0 {
			t.Errorf("style %+v: referee %v, agent %v, unasked lines %q, problems %q", st, o.fail, o.err, o.extra, o.tally.problems)
			continue
		}
		s, tl := o.stats, o.tally
		if s.Games != games || tl.games != games || s.Wins != tl.agentWins || s.Draws != tl.draws || s.Losses != tl.agentLosses ||
			s.Moves != tl.replies || s.Malformed != tl.malformed || s.OutOfSync != 0 {
			t.Errorf("style %+v: agent's stats %+v, want %d games, the referee's %d won, %d drawn, %d lost, %d moves, %d malformed, none out of sync",
				st, s, games, tl.agentWins, tl.draws, tl.agentLosses, tl.replies, tl.malformed)
		}
	}
	t.Logf("%d sessions, %d games (%d won, %d drawn, %d lost), %d replies, %d bytes to the agent, %d malformed lines of %d kinds, slowest reply %v",
		len(styles), sum.games, sum.agentWins, sum.draws, sum.agentLosses, sum.replies, sum.bytes, sum.malformed, len(sum.kinds), sum.slowest)
	if sum.games != games*len(styles) || sum.agentWins != sum.games {
		t.Errorf("%d games, %d won; want %d, all won", sum.games, sum.agentWins, games*len(styles))
	}
	if len(sum.kinds) != len(malformedLines) {
		t.Errorf("%d kinds of malformed line sent, want all %d", len(sum.kinds), len(malformedLines))
	}
}

// Each malformed line, alone before a game, is counted once and changes
// nothing: the game that follows is played as without it.
func TestMalformedLinesEach(t *testing.T) {
	for k, line := range malformedLines {
		for _, end := range []string{"\n", "\r\n"} {
			a, b := net.Pipe()
			done := make(chan Stats, 1)
			go func() {
				s, _ := Run(context.Background(), a, testConfig())
				a.Close()
				done <- s
			}()
			go func() {
				fmt.Fprintf(b, "init.\n%s%sstart(o).\nsecond_move(5,5).\n", line, end)
			}()
			b.SetReadDeadline(time.Now().Add(hang))
			reply, err := bufio.NewReader(b).ReadString('\n')
			if err != nil || len(reply) != 2 || reply[0] < '1' || reply[0] > '9' || reply[0] == '5' {
				t.Errorf("malformed line %d %q: reply %q, %v; want an empty cell of board 5", k, line, reply, err)
			}
			b.Close()
			if s := <-done; s.Malformed != 1 || s.OutOfSync != 0 {
				t.Errorf("malformed line %d %q%q: %d malformed, %d out of sync; want 1 and 0", k, line, end, s.Malformed, s.OutOfSync)
			}
		}
	}
}

// TestRefereeClosesAtEveryStage closes the connection after every byte of
// a two-game session (the agent X, then O), written one byte at a time
// with no line ends, and after every reply the referee reads: before init, in the middle of
// every message, between a result and the next start, while the agent
// searches, after its reply, before end. Every time the agent returns
// (cleanly between games, ErrClosedMidGame or a failed send during one),
// and every reply it sent before is legal. With -short it cuts only at
// the ends of messages and in their middles, the same paths in the agent
// (a message cut short, a closed connection between messages or while it
// searches, a failed send).
func TestRefereeClosesAtEveryStage(t *testing.T) {
	st := style{split: 2, eol: 2, direct: true}
	cfg := Config{MoveNodes: 1, TTBits: 10}
	full := playPipe(context.Background(), 7, st, 2, true, cfg)
	if full.fail != nil || full.err != nil || full.tally.games != 2 || len(full.tally.problems) > 0 {
		t.Fatalf("the uncut session: referee %v, agent %v, %d games, problems %q", full.fail, full.err, full.tally.games, full.tally.problems)
	}
	type cutAt struct {
		byte       int
		afterReply bool
	}
	var cuts []cutAt
	if testing.Short() {
		cuts = append(cuts, cutAt{0, false})
		prev := 0
		for _, end := range full.tally.messageEnds {
			cuts = append(cuts, cutAt{(prev + end) / 2, false}, cutAt{end, false})
			prev = end
		}
	} else {
		for b := 0; b <= full.tally.bytes; b++ {
			cuts = append(cuts, cutAt{b, false})
		}
	}
	for _, b := range full.tally.requestEnds {
		cuts = append(cuts, cutAt{b, true})
	}
	kinds := map[string]int{}
	for _, c := range cuts {
		cut, afterReply := c.byte, c.afterReply
		{
			a, b := net.Pipe()
			done := make(chan error, 1)
			go func() {
				_, err := Run(context.Background(), a, cfg)
				a.Close()
				done <- err
			}()
			ref := newReferee(b, 7, st)
			ref.cutAt, ref.cutAfterReply = cut, afterReply
			rerr := ref.session(2, true)
			var err error
			select {
			case err = <-done:
			case <-time.After(hang):
				b.Close()
				t.Fatalf("cut at byte %d (after the reply %v): the agent still runs %v later", cut, afterReply, hang)
			}
			ref.finish()
			switch {
			case err == nil:
				kinds["clean"]++
			case errors.Is(err, ErrClosedMidGame):
				kinds["closed mid-game"]++
			case errors.Is(err, io.ErrClosedPipe):
				kinds["send failed"]++
			default:
				t.Errorf("cut at byte %d (after the reply %v): agent %v", cut, afterReply, err)
			}
			if !errors.Is(rerr, errCut) {
				t.Errorf("cut at byte %d: referee %v", cut, rerr)
			}
			if len(ref.tally.problems) > 0 {
				t.Errorf("cut at byte %d: %q", cut, ref.tally.problems)
			}
		}
	}
	t.Logf("%d cuts in a session of %d bytes and %d replies: %v", len(cuts), full.tally.bytes, full.tally.replies, kinds)
	if kinds["clean"] == 0 || kinds["closed mid-game"] == 0 || kinds["send failed"] == 0 {
		t.Errorf("outcomes %v: want each of clean, closed mid-game and send failed", kinds)
	}
}

// The engine against a random player through the protocol over TCP (Dial):
// every game won in each seat, never an illegal move, the result of every
// game agreed. Four connections (two per seat) play at once.
func TestAgentBeatsRandomPlayer(t *testing.T) {
	games := 25 // per connection
	type result struct {
		seat   bool
		stats  Stats
		err    error
		out    outcome
		refErr error
	}
	results := make([]result, 4)
	var wg sync.WaitGroup
	for i := range results {
		l := listen(t)
		wg.Go(func() {
			done := make(chan result, 1)
			go func() {
				st, err := Dial(context.Background(), l.Addr().String(), testConfig())
				done <- result{stats: st, err: err}
			}()
			conn, err := l.Accept()
			if err != nil {
				results[i] = result{refErr: err}
				return
			}
			ref := newReferee(conn, uint64(100+i), style{})
			rerr := ref.session(games, i%2 == 0)
			var r result
			select {
			case r = <-done:
			case <-time.After(hang):
				rerr = errors.Join(rerr, fmt.Errorf("the agent still runs %v after end", hang))
				conn.Close()
				r = <-done
			}
			extra, ferr := ref.finish()
			r.seat, r.refErr = i%2 == 0, errors.Join(rerr, ferr)
			r.out = outcome{tally: ref.tally, extra: extra}
			results[i] = r
		})
	}
	wg.Wait()
	for _, seat := range []bool{true, false} {
		var sum tally
		for i, r := range results {
			if i%2 == 0 != seat {
				continue
			}
			if r.refErr != nil || r.err != nil || len(r.out.extra) > 0 || len(r.out.tally.problems) > 0 {
				t.Errorf("connection %d: referee %v, agent %v, unasked lines %q, problems %q", i, r.refErr, r.err, r.out.extra, r.out.tally.problems)
			}
			tl := r.out.tally
			if r.stats.Games != tl.games || r.stats.Wins != tl.agentWins || r.stats.OutOfSync != 0 || r.stats.Malformed != 0 {
				t.Errorf("connection %d: agent's stats %+v disagree with the referee's %+v", i, r.stats, tl)
			}
			sum.add(tl)
		}
		name := map[bool]string{true: "agent as X", false: "agent as O"}[seat]
		t.Logf("%s: %d games, %d won, %d drawn, %d lost, %.1f plies a game, %d replies, slowest %v",
			name, sum.games, sum.agentWins, sum.draws, sum.agentLosses, float64(sum.plies)/float64(max(sum.games, 1)), sum.replies, sum.slowest)
		if sum.games != 2*games || sum.agentWins != sum.games {
			t.Errorf("%s: won %d of %d games, want all of %d", name, sum.agentWins, sum.games, 2*games)
		}
	}
}

// listen opens a referee socket on 127.0.0.1.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}
