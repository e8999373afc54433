package agent

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// connect starts an agent against a fresh listener and returns the
// referee's side of the connection and the agent's outcome.
func connect(t *testing.T, ctx context.Context, cfg Config) (net.Conn, <-chan error, *Stats) {
	t.Helper()
	l := listen(t)
	done := make(chan error, 1)
	var st Stats
	go func() {
		s, err := Dial(ctx, l.Addr().String(), cfg)
		st = s
		done <- err
	}()
	conn, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, done, &st
}

func waitAgent(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(hang):
		t.Fatalf("agent still running %v after the referee stopped", hang)
	}
	return nil
}

// Malformed and contradictory messages are logged and skipped, requests
// are still answered with legal cells, and the session ends cleanly.
func TestMalformedMessages(t *testing.T) {
	conn, done, st := connect(t, context.Background(), logged(t))
	r := bufio.NewReader(conn)
	var grid [9][9]bool
	send := func(s string) {
		t.Helper()
		if _, err := conn.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	// expect reads the agent's reply to a request for board bd (1-9) and
	// checks the cell is on the board and empty.
	expect := func(bd int) int {
		t.Helper()
		conn.SetReadDeadline(time.Now().Add(hang))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no reply for board %d: %v", bd, err)
		}
		c, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || c < 1 || c > 9 || grid[bd-1][c-1] {
			t.Fatalf("reply %q for board %d: not an empty cell", line, bd)
		}
		grid[bd-1][c-1] = true
		return c
	}
	malformed := []string{
		"hello world.\n",
		"start(z).\n",
		strings.Repeat("x", 5000) + ".\n",
		"second_move(5,).\n",
		"second_move(10,3).\n",
		"second_move(5,3\n",
		"(((.\n",
		"\x00\xff\xfe.\n",
	}
	send("init.\n")
	send("next_move(3).\n") // outside a game: ignored, not malformed
	for _, m := range malformed[:3] {
		send(m)
	}
	send("start(o).\n")
	for _, m := range malformed[3:] {
		send(m)
	}
	send("  second_move( 5 , 3 ) .\r\n") // spaces are tolerated
	grid[4][2] = true
	c := expect(3)
	send("next_move(99).\n")
	malformed = append(malformed, "next_move(99).")
	// Two messages on one line, the second a legal reply of X.
	next := 1
	for grid[c-1][next-1] {
		next++
	}
	grid[c-1][next-1] = true
	send("init.next_move(" + strconv.Itoa(next) + ").\n")
	c = expect(next)
	// X plays on until it is sent to a board with a stone in it, and plays
	// on that stone: out of sync, and still answered with an empty cell of
	// the board asked for.
	contradicted := false
	for range 40 {
		occupied, free := 0, 0
		for i := 9; i >= 1; i-- {
			if grid[c-1][i-1] {
				occupied = i
			} else {
				free = i
			}
		}
		if occupied > 0 {
			send(fmt.Sprintf("next_move(%d).\n", occupied))
			expect(occupied)
			contradicted = true
			break
		}
		grid[c-1][free-1] = true
		send(fmt.Sprintf("next_move(%d).\n", free))
		c = expect(free)
	}
	if !contradicted {
		t.Fatal("never sent to a board with a stone")
	}
	send("loss(illegal_move).\nend.\n")
	if err := waitAgent(t, done); err != nil {
		t.Fatalf("agent: %v", err)
	}
	if st.Malformed != len(malformed) || st.OutOfSync != 1 || st.Games != 1 || st.Losses != 1 {
		t.Errorf("stats %+v: want %d malformed, 1 out of sync, 1 game lost", *st, len(malformed))
	}
}

// Asked to play in a full board (a draw by the rules), the agent sends no
// move and plays the next game; a reason with a dot in it is one message.
// (It ended the whole session with an error, and split "illegal.move" into
// two malformed messages, never recording the game's end.)
func TestFullBoardAndDottedReason(t *testing.T) {
	conn, done, st := connect(t, context.Background(), logged(t))
	r := bufio.NewReader(conn)
	send := func(s string) {
		t.Helper()
		if _, err := conn.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	reply := func() int {
		t.Helper()
		conn.SetReadDeadline(time.Now().Add(hang))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no reply: %v", err)
		}
		c, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || c < 1 || c > 9 {
			t.Fatalf("reply %q: not a cell", line)
		}
		return c
	}
	// O sent to board 1 again and again until it is full: X's first stone
	// and eight of O's fill it.
	send("init.\nstart(o).\nsecond_move(1,1).\n")
	seen := map[int]bool{1: true}
	for range 8 {
		c := reply()
		if seen[c] {
			t.Fatalf("cell %d of board 1 given twice", c)
		}
		seen[c] = true
		send("next_move(1).\n")
	}
	// No move exists in board 1: the next reply is the new game's.
	send("draw(full_board).\nstart(x).\nthird_move(5,1,2).\n")
	if c := reply(); c < 1 || c > 9 {
		t.Fatalf("reply %d in the second game", c)
	}
	send("loss(illegal.move).\nend.\n")
	if err := waitAgent(t, done); err != nil {
		t.Fatalf("agent: %v", err)
	}
	if st.Games != 2 || st.Draws != 1 || st.Losses != 1 || st.Malformed != 0 {
		t.Errorf("stats %+v: want 2 games, a draw and a loss, nothing malformed", *st)
	}
}

// The referee closes the connection at every byte of a session: the agent
// returns promptly every time, cleanly or with a connection error.
func TestRefereeClosesAnyTime(t *testing.T) {
	script := "init.\nstart(o).\nsecond_move(5,3).\nnext_move(1).\nwin(triple).\nstart(x).\nthird_move(1,2,3).\nend.\n"
	for cut := 0; cut <= len(script); cut++ {
		conn, done, _ := connect(t, context.Background(), Config{MoveNodes: 1, TTBits: 12})
		if _, err := conn.Write([]byte(script[:cut])); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		err := waitAgent(t, done)
		if err != nil && !errors.Is(err, ErrClosedMidGame) && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("cut at %d (%q): %v", cut, script[:cut], err)
		}
	}
}

// A cancelled context ends a waiting agent.
func TestAgentContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	conn, done, _ := connect(t, ctx, Config{})
	if _, err := conn.Write([]byte("init.\nstart(x).\n")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := waitAgent(t, done); !errors.Is(err, context.Canceled) {
		t.Errorf("agent: %v, want context.Canceled", err)
	}
}

// The default budget leaves the clock growing: a game of 40 moves of the
// agent at the full budget never runs out.
func TestBudgetKeepsTheClock(t *testing.T) {
	a := &player{cfg: Config{}}
	a.cfg.defaults()
	for range 40 {
		b := a.budget()
		a.used += b + 30*time.Millisecond // and some slack per move
		a.moves++
		if left := a.cfg.Clock + time.Duration(a.moves)*a.cfg.Increment - a.used; left < a.cfg.Increment {
			t.Fatalf("after %d moves: %v left, budget %v", a.moves, left, b)
		}
	}
	a.cfg.MoveTime = 50 * time.Millisecond
	if b := a.budget(); b != 50*time.Millisecond {
		t.Errorf("--move-time 50ms: budget %v", b)
	}
}

// logged is testConfig with the agent's log in the test's.
func logged(t *testing.T) Config {
	cfg := testConfig()
	cfg.Log = slog.New(slog.NewTextHandler(tWriter{t}, nil))
	return cfg
}

// tWriter sends log lines to the test log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Whatever the referee sends, the agent does not crash or hang, and every
// reply it writes is one cell number 1-9 on a line.
func FuzzRun(f *testing.F) {
	f.Add([]byte("init.\nstart(o).\nsecond_move(5,3).\nnext_move(1).\nlast_move(2).\nloss(triple).\nend.\n"))
	f.Add([]byte("init.\nstart(x).\nthird_move(1,2,3).\nnext_move(3).\nnext_move(3).\nnext_move(3).\nwin(triple).\nstart(o).\nsecond_move(9,9).\n"))
	f.Add([]byte("start(x).third_move(5,5,5).next_move(5).next_move(5).next_move(5).next_move(5).next_move(5).next_move(5).next_move(5).next_move(5)."))
	f.Add([]byte("second_move(1,1).\nthird_move(1,1,1).\nnext_move(1).\n\x00((..)).\nstart(o"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		conn := struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(data), &out}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Run(context.Background(), conn, Config{MoveNodes: 1, TTBits: 10})
		}()
		select {
		case <-done:
		case <-time.After(hang):
			t.Fatalf("agent hangs on %q", data)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if out.Len() > 0 && (len(line) != 1 || line[0] < '1' || line[0] > '9') {
				t.Fatalf("reply %q to %q", line, data)
			}
		}
	})
}
