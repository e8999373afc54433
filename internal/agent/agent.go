// Package agent plays nine-board tic-tac-toe (the first-triple variant)
// against a referee over its TCP line protocol.
//
// The referee sends one message per line, each ending in '.': init,
// start(x|o), second_move(B,C), third_move(B,C,D), next_move(C),
// last_move(C), win(R), loss(R), draw(R) and end. The agent answers every
// *_move request except last_move with a bare cell number 1-9 and a
// newline. Boards and cells are 1-9 on the wire.
//
// The agent never sends an illegal move while it agrees with the referee
// about the position; when the referee's messages contradict the rules, it
// logs that and from then on answers with an empty cell of the requested
// board; asked to play in a full board (a draw by the rules), it sends no
// move and waits for the result. Malformed lines are logged and skipped. A
// closed connection ends Run cleanly.
//
// The agent is one of wopr's faces, beside the terminal and the web: a
// protocol adapter that analyze nineboard agent runs, which nothing
// outside the module has reason to import.
package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
)

// Config tunes the agent. The zero value plays with the course's clock.
type Config struct {
	// MoveTime caps the thinking time per move; 0 leaves it to the clock.
	MoveTime time.Duration
	// MoveNodes, if set, caps the nodes searched per move as well
	// (nineboard.Limits.Nodes): while the clock leaves more time than
	// that takes, the agent plays the same moves on any machine.
	MoveNodes uint64
	// Clock is the time per game at the start (default 30 s) and Increment
	// what each move adds (default 2 s).
	Clock, Increment time.Duration
	// Margin is kept in reserve for the network and the referee's own
	// timing (default 100 ms).
	Margin time.Duration
	// TTBits sizes the transposition table: 2^TTBits entries of 16 bytes
	// (default 20: 16 MiB).
	TTBits int
	// Log receives a line per move (depth, nodes, nodes/s, score, PV) and
	// per problem; nil discards.
	Log *slog.Logger
}

func (c *Config) defaults() {
	if c.Clock <= 0 {
		c.Clock = 30 * time.Second
	}
	if c.Increment <= 0 {
		c.Increment = 2 * time.Second
	}
	if c.Margin <= 0 {
		c.Margin = 100 * time.Millisecond
	}
	if c.TTBits <= 0 {
		c.TTBits = 20
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Stats is what an agent did on one connection.
type Stats struct {
	Games, Wins, Draws, Losses int
	Moves                      int
	Malformed                  int // messages that could not be read
	OutOfSync                  int // games in which the referee contradicted the rules
	Slowest                    time.Duration
}

// ErrClosedMidGame is returned when the referee closes the connection
// during a game.
var ErrClosedMidGame = errors.New("referee closed the connection during a game")

// Dial connects to a referee at addr ("host:port") and plays until it sends
// end or closes the connection.
func Dial(ctx context.Context, addr string, cfg Config) (Stats, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return Stats{}, fmt.Errorf("connect to referee: %w", err)
	}
	defer conn.Close()
	return Run(ctx, conn, cfg)
}

// maxMessage bounds a message; longer ones are malformed.
const maxMessage = 200

// Run plays on conn until the referee sends end, closes the connection or
// ctx is done. When ctx ends, conn is closed if it is an io.Closer.
func Run(ctx context.Context, conn io.ReadWriter, cfg Config) (Stats, error) {
	cfg.defaults()
	if c, ok := conn.(io.Closer); ok {
		defer context.AfterFunc(ctx, func() { c.Close() })()
	}
	a := &player{cfg: cfg, log: cfg.Log, search: nineboard.NewSearcher(cfg.TTBits), r: bufio.NewReader(conn), w: conn, cleared: true}
	err := a.loop(ctx)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return a.stats, err
}

type player struct {
	cfg    Config
	log    *slog.Logger
	search *nineboard.Searcher
	r      *bufio.Reader
	w      io.Writer
	stats  Stats

	inGame bool
	me     nineboard.Player
	board  *nineboard.Board
	// grid mirrors every stone the referee reported, legal or not: the
	// fallback when the board is out of sync.
	grid   [9][9]bool
	synced bool
	// lastCell is the cell of the agent's last move: the board the
	// opponent was sent to.
	lastCell int
	moves    int
	used     time.Duration
	// cleared: the search tables are empty (cleared when the last game
	// ended, or never used).
	cleared bool
}

// errTooLong marks a message longer than maxMessage.
var errTooLong = errors.New("message too long")

// read returns the next message without its final '.', trimmed. Messages
// end at a '.' outside parentheses (a reason such as "illegal.move" keeps
// its dot) or at the end of a line.
func (a *player) read() (string, error) {
	var b []byte
	long := false
	depth := 0
	for {
		c, err := a.r.ReadByte()
		if err != nil {
			if len(b) > 0 && errors.Is(err, io.EOF) {
				return strings.TrimSpace(string(b)), nil
			}
			return "", err
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		}
		if c == '.' && depth == 0 || c == '\n' {
			depth = 0
			if long {
				return "", errTooLong
			}
			if s := strings.TrimSpace(string(b)); s != "" {
				return s, nil
			}
			b = b[:0]
			continue
		}
		if len(b) >= maxMessage {
			long = true
			continue
		}
		b = append(b, c)
	}
}

func (a *player) loop(ctx context.Context) error {
	for {
		msg, err := a.read()
		received := time.Now()
		switch {
		case errors.Is(err, errTooLong):
			a.malformed("a message longer than %d bytes", maxMessage)
			continue
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if a.inGame {
				return ErrClosedMidGame
			}
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				a.log.Info("referee closed the connection")
				return nil
			}
			return fmt.Errorf("read from referee: %w", err)
		}
		name, args, ok := parse(msg)
		if !ok {
			a.malformed("%q", msg)
			continue
		}
		done, err := a.handle(ctx, name, args, msg, received)
		if err != nil || done {
			return err
		}
	}
}

func (a *player) malformed(format string, args ...any) {
	a.stats.Malformed++
	a.log.Warn("ignoring malformed message: " + fmt.Sprintf(format, args...))
}

// parse splits "name(1,2)" into its name and arguments; arguments are
// digits 1-9 or words.
func parse(msg string) (name string, args []string, ok bool) {
	open := strings.IndexByte(msg, '(')
	if open < 0 {
		return msg, nil, validName(msg)
	}
	if !strings.HasSuffix(msg, ")") {
		return "", nil, false
	}
	name = strings.TrimSpace(msg[:open])
	for _, f := range strings.Split(msg[open+1:len(msg)-1], ",") {
		args = append(args, strings.TrimSpace(f))
	}
	return name, args, validName(name)
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// cells converts n arguments, each 1-9, to 0-8.
func cells(args []string, n int) ([]int, bool) {
	if len(args) != n {
		return nil, false
	}
	out := make([]int, n)
	for i, s := range args {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 9 {
			return nil, false
		}
		out[i] = v - 1
	}
	return out, true
}

// handle acts on one message; done ends the session.
func (a *player) handle(ctx context.Context, name string, args []string, msg string, received time.Time) (done bool, err error) {
	switch name {
	case "init":
		return false, nil
	case "end":
		a.log.Info("end of session", "games", a.stats.Games, "wins", a.stats.Wins, "draws", a.stats.Draws, "losses", a.stats.Losses)
		return true, nil
	case "start":
		switch {
		case len(args) == 1 && args[0] == "x":
			a.newGame(nineboard.X)
		case len(args) == 1 && args[0] == "o":
			a.newGame(nineboard.O)
		default:
			a.malformed("%q: want start(x) or start(o)", msg)
		}
		return false, nil
	case "win", "loss", "draw":
		if !a.inGame {
			a.log.Warn("result outside a game", "message", msg)
			return false, nil
		}
		a.inGame = false
		a.stats.Games++
		switch name {
		case "win":
			a.stats.Wins++
		case "draw":
			a.stats.Draws++
		default:
			a.stats.Losses++
		}
		a.log.Info("game over", "result", msg, "moves", a.moves, "clock_used", a.used.Round(time.Millisecond))
		// Clear the tables now, between games, rather than at the next
		// start(...), which a referee may send right before the first move
		// request: clearing 16 MiB takes long enough on a loaded machine
		// (up to a tenth of a second) to matter on a clock that does not
		// count it.
		a.search.Clear()
		a.cleared = true
		return false, nil
	case "second_move":
		c, ok := cells(args, 2)
		if !ok {
			a.malformed("%q: want second_move(B,C) with B and C in 1-9", msg)
			return false, nil
		}
		if !a.inGame || a.me != nineboard.O || a.board.Ply() != 0 {
			a.outOfSync("second_move for a player who is not O at the start of a game", msg)
			a.newGame(nineboard.O)
		}
		a.opponent(c[0], c[1], msg)
		return false, a.reply(ctx, c[1], received)
	case "third_move":
		c, ok := cells(args, 3)
		if !ok {
			a.malformed("%q: want third_move(B,C,D) with B, C and D in 1-9", msg)
			return false, nil
		}
		if !a.inGame || a.me != nineboard.X || a.board.Ply() != 0 {
			a.outOfSync("third_move for a player who is not X at the start of a game", msg)
			a.newGame(nineboard.X)
		}
		a.own(c[0], c[1], msg)
		a.opponent(c[1], c[2], msg)
		return false, a.reply(ctx, c[2], received)
	case "next_move", "last_move":
		c, ok := cells(args, 1)
		if !ok {
			a.malformed("%q: want %s(C) with C in 1-9", msg, name)
			return false, nil
		}
		if !a.inGame {
			a.log.Warn("move outside a game: ignored", "message", msg)
			return false, nil
		}
		a.opponent(a.lastCell, c[0], msg)
		if name == "last_move" {
			return false, nil
		}
		return false, a.reply(ctx, c[0], received)
	}
	a.malformed("%q: unknown message", msg)
	return false, nil
}

func (a *player) newGame(me nineboard.Player) {
	if a.inGame {
		a.log.Warn("new game before the last one ended")
	}
	a.inGame, a.me, a.synced = true, me, true
	a.board = nineboard.NewBoard(nineboard.FirstTriple)
	a.grid = [9][9]bool{}
	a.moves, a.used, a.lastCell = 0, 0, -1
	if !a.cleared {
		a.search.Clear()
	}
	a.cleared = false
}

func (a *player) outOfSync(why, msg string) {
	if a.synced {
		a.stats.OutOfSync++
	}
	a.synced = false
	a.log.Warn("out of sync with the referee: "+why+"; answering with empty cells from now on", "message", msg)
}

// place records a stone of p in (bd, c) on the grid and, while in sync, on
// the board.
func (a *player) place(p nineboard.Player, bd, c int, msg string) {
	if bd < 0 {
		a.outOfSync("a move with no board to play in", msg)
		return
	}
	a.grid[bd][c] = true
	if !a.synced {
		return
	}
	m := nineboard.NewMove(bd, c)
	if a.board.Side() != p || !a.board.Legal(m) {
		a.outOfSync(fmt.Sprintf("%s %d,%d is not legal here", p, bd+1, c+1), msg)
		return
	}
	a.board.Make(m)
}

func (a *player) own(bd, c int, msg string) { a.place(a.me, bd, c, msg) }

func (a *player) opponent(bd, c int, msg string) { a.place(a.me^1, bd, c, msg) }

// budget is the thinking time for the next move: a share of the clock that
// leaves it growing, never more than a third of what is left.
func (a *player) budget() time.Duration {
	left := a.cfg.Clock + time.Duration(a.moves)*a.cfg.Increment - a.used - a.cfg.Margin
	t := min(left/12+a.cfg.Increment/2, left/3)
	if a.cfg.MoveTime > 0 {
		t = min(t, a.cfg.MoveTime)
	}
	return max(t, time.Millisecond)
}

// reply chooses a cell of board bd, plays it and sends it. A cancelled ctx
// cuts the search short; the connection is closed by then anyway.
func (a *player) reply(ctx context.Context, bd int, received time.Time) error {
	cell := -1
	if a.synced && a.board.Result() == nineboard.Ongoing && a.board.Next() == bd {
		info := a.search.Search(ctx, a.board, nineboard.Limits{Time: a.budget(), Nodes: a.cfg.MoveNodes})
		cell = info.Move.Cell()
		a.log.Info("move", "move", info.Move.String(), "depth", info.Depth, "nodes", info.Nodes,
			"nps", int64(info.NodesPerSecond()), "score", info.Score, "pv", pv(info.PV))
	} else {
		for c := range 9 {
			if !a.grid[bd][c] {
				cell = c
				break
			}
		}
		if cell < 0 {
			// No move exists: by the rules the game is a draw. Wait for the
			// referee's result rather than give up the games still to come.
			a.log.Warn("asked for a move in a full board (by the rules a draw): no move sent", "board", bd+1)
			return nil
		}
		if a.synced {
			a.outOfSync(fmt.Sprintf("asked to play in board %d", bd+1), "")
		}
	}
	a.own(bd, cell, "")
	a.lastCell = cell
	if _, err := fmt.Fprintf(a.w, "%d\n", cell+1); err != nil {
		return fmt.Errorf("send move: %w", err)
	}
	took := time.Since(received)
	a.used += took
	a.moves++
	a.stats.Moves++
	a.stats.Slowest = max(a.stats.Slowest, took)
	return nil
}

func pv(ms []nineboard.Move) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.String())
	}
	return b.String()
}
