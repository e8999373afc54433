package agent

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// referee is a test referee for the first-triple protocol, written from the
// issue's description with its own board (no engine code): it plays a
// random player against the agent on one connection and judges legality
// and the clock.
type referee struct {
	conn       net.Conn
	r          *bufio.Reader
	rng        *rand.Rand
	clock, inc time.Duration
	// moveCap, if set, is the longest reply the test accepts: stricter than
	// the clock, loose enough for a loaded machine.
	moveCap time.Duration
	tally   tally
}

type tally struct {
	games, agentWins, draws, agentLosses int
	illegal, late, slow                  int
	plies                                int
	slowest                              time.Duration
	lastProblem                          string
}

// game state of the referee: cells[board][cell] is 0, 'x' or 'o'.
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

func (ref *referee) send(format string, args ...any) error {
	_, err := fmt.Fprintf(ref.conn, format+"\n", args...)
	return err
}

// ask sends a move request and reads the agent's cell within its clock.
func (ref *referee) ask(left time.Duration, format string, args ...any) (cell int, took time.Duration, problem string, err error) {
	if err := ref.send(format, args...); err != nil {
		return 0, 0, "", err
	}
	start := time.Now()
	ref.conn.SetReadDeadline(start.Add(left))
	line, err := ref.r.ReadString('\n')
	took = time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return 0, took, "timeout", nil
	}
	if err != nil {
		return 0, took, "", err
	}
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || n < 1 || n > 9 {
		return 0, took, "illegal_move", nil
	}
	return n - 1, took, "", nil
}

// playGame plays one game with the agent as X (agentX) or O.
func (ref *referee) playGame(agentX bool) error {
	var g refGame
	agent, other := byte('o'), byte('x')
	if agentX {
		agent, other = 'x', 'o'
		if err := ref.send("start(x)."); err != nil {
			return err
		}
	} else if err := ref.send("start(o)."); err != nil {
		return err
	}
	left := ref.clock
	// The referee makes X's first move.
	b, c := ref.rng.IntN(9), ref.rng.IntN(9)
	g.play('x', b, c)
	plies := 1
	req := fmt.Sprintf("second_move(%d,%d).", b+1, c+1)
	if agentX {
		d := g.random(ref.rng)
		g.play('o', c, d)
		plies++
		req = fmt.Sprintf("third_move(%d,%d,%d).", b+1, c+1, d+1)
	}
	result := func(agentMsg string, winner byte, reason string) error {
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
		return ref.send("%s(%s).", agentMsg, reason)
	}
	for {
		cell, took, problem, err := ref.ask(left, "%s", req)
		if err != nil {
			return err
		}
		ref.tally.slowest = max(ref.tally.slowest, took)
		if ref.moveCap > 0 && took > ref.moveCap {
			ref.tally.slow++
			ref.tally.lastProblem = fmt.Sprintf("reply after %v", took)
		}
		left -= took
		if problem == "" && left < 0 {
			problem = "timeout"
		}
		if problem == "" && g.cells[g.next][cell] != 0 {
			problem = "illegal_move"
		}
		if problem != "" {
			if problem == "timeout" {
				ref.tally.late++
			} else {
				ref.tally.illegal++
			}
			ref.tally.lastProblem = problem
			return result("loss", other, problem)
		}
		left += ref.inc
		plies++
		if end := g.play(agent, g.next, cell); end != "" {
			if end == "triple" {
				return result("win", agent, end)
			}
			return result("draw", 0, end)
		}
		reply := g.random(ref.rng)
		plies++
		switch end := g.play(other, g.next, reply); end {
		case "triple":
			if err := ref.send("last_move(%d).", reply+1); err != nil {
				return err
			}
			return result("loss", other, end)
		case "full_board":
			if err := ref.send("last_move(%d).", reply+1); err != nil {
				return err
			}
			return result("draw", 0, end)
		}
		req = fmt.Sprintf("next_move(%d).", reply+1)
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

// session runs an agent against a referee for games games in the given
// seat and returns the referee's tally and the agent's stats.
func session(t *testing.T, games int, agentX bool, seed uint64, cfg Config) (tally, Stats) {
	t.Helper()
	l := listen(t)
	type result struct {
		stats Stats
		err   error
	}
	done := make(chan result, 1)
	go func() {
		st, err := Dial(context.Background(), l.Addr().String(), cfg)
		done <- result{st, err}
	}()
	conn, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ref := &referee{conn: conn, r: bufio.NewReader(conn), rng: rand.New(rand.NewPCG(seed, 99)),
		clock: 30 * time.Second, inc: 2 * time.Second, moveCap: 2 * time.Second}
	if err := ref.send("init."); err != nil {
		t.Fatal(err)
	}
	for range games {
		if err := ref.playGame(agentX); err != nil {
			t.Fatalf("referee: %v", err)
		}
	}
	if err := ref.send("end."); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil {
			t.Errorf("agent: %v", r.err)
		}
		return ref.tally, r.stats
	case <-time.After(10 * time.Second):
		t.Fatal("agent did not return after end.")
	}
	return tally{}, Stats{}
}

// The engine against a random player through the protocol: at least 99% of
// 200 games won in each seat, never an illegal move, never late. Four
// connections (two per seat) play at once; 5 ms per move keeps the test
// within its budget on two cores.
func TestAgentBeatsRandomPlayer(t *testing.T) {
	games := 100 // per connection, two connections per seat
	cfg := Config{MoveTime: 5 * time.Millisecond, TTBits: 16}
	type seatResult struct {
		agentX bool
		t      tally
		s      Stats
	}
	var mu sync.Mutex
	var results []seatResult
	var wg sync.WaitGroup
	for i := range 4 {
		agentX := i%2 == 0
		wg.Go(func() {
			tl, st := session(t, games, agentX, uint64(i), cfg)
			mu.Lock()
			results = append(results, seatResult{agentX, tl, st})
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, seat := range []bool{true, false} {
		var sum tally
		var moves int
		for _, r := range results {
			if r.agentX != seat {
				continue
			}
			sum.games += r.t.games
			sum.agentWins += r.t.agentWins
			sum.draws += r.t.draws
			sum.agentLosses += r.t.agentLosses
			sum.illegal += r.t.illegal
			sum.late += r.t.late
			sum.slow += r.t.slow
			sum.plies += r.t.plies
			sum.slowest = max(sum.slowest, r.t.slowest)
			moves += r.s.Moves
			if r.t.lastProblem != "" {
				sum.lastProblem = r.t.lastProblem
			}
			if r.s.Games != r.t.games || r.s.Wins != r.t.agentWins || r.s.OutOfSync != 0 || r.s.Malformed != 0 {
				t.Errorf("agent stats %+v disagree with the referee's %+v", r.s, r.t)
			}
		}
		name := map[bool]string{true: "agent as X", false: "agent as O"}[seat]
		t.Logf("%s: %d games, %d won, %d drawn, %d lost, %.1f plies per game, %d agent moves, slowest reply %v",
			name, sum.games, sum.agentWins, sum.draws, sum.agentLosses, float64(sum.plies)/float64(sum.games), moves, sum.slowest)
		if sum.games != 2*games {
			t.Errorf("%s: %d games, want %d", name, sum.games, 2*games)
		}
		if sum.agentWins*100 < sum.games*99 {
			t.Errorf("%s: won %d of %d, want at least 99%%", name, sum.agentWins, sum.games)
		}
		if sum.illegal != 0 || sum.late != 0 || sum.slow != 0 {
			t.Errorf("%s: %d illegal, %d late, %d slower than the cap (last: %s)", name, sum.illegal, sum.late, sum.slow, sum.lastProblem)
		}
	}
}
