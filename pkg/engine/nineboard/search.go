package nineboard

import (
	"context"
	"sync/atomic"
	"time"
)

// Limits bound a search. Zero values mean no bound; a search with no limit
// runs to MaxPly or a proven result.
type Limits struct {
	// Depth is the deepest iteration, in plies.
	Depth int
	// Time is the thinking time; the search stops within a few
	// microseconds of it (the clock is read every 1024 nodes) and returns
	// the best move of the last complete iteration.
	Time time.Duration
	// Nodes stops the search like Time once it has searched this many
	// nodes (checked where the clock is read, so it may pass the limit by
	// thousands): the same position and limits give the same result
	// on any machine.
	Nodes uint64
}

// Info is the outcome of a search.
type Info struct {
	Move  Move
	Score int // from the side to move's view; beyond ±MateBound a forced result
	Depth int // last complete iteration
	Nodes uint64
	// Elapsed is the wall time of the search.
	Elapsed time.Duration
	// PV is the principal variation; it aliases the searcher's memory and
	// is valid until its next search.
	PV []Move
}

// NodesPerSecond is the search speed.
func (i Info) NodesPerSecond() float64 {
	if i.Elapsed <= 0 {
		return 0
	}
	return float64(i.Nodes) / i.Elapsed.Seconds()
}

// Forced says whether the score is a proven win or loss.
func (i Info) Forced() bool { return i.Score > MateBound || i.Score < -MateBound }

type ttFlag uint8

const (
	ttNone ttFlag = iota
	ttExact
	ttLower
	ttUpper
)

// ttEntry is 16 bytes: one always-replace slot per index.
type ttEntry struct {
	key   uint64
	score int16
	depth int8
	flag  ttFlag
	move  Move
}

// Searcher is a negamax alpha-beta search with a transposition table,
// move ordering (TT move, two killers per ply, history) and iterative
// deepening. It is not safe for concurrent use: give each goroutine its own.
// After construction it allocates nothing.
type Searcher struct {
	b        Board
	tt       []ttEntry
	ttMask   uint64
	useTT    bool
	killers  [MaxPly + 1][2]Move
	history  [2][81]int32
	moves    [MaxPly + 1][81]Move
	scores   [MaxPly + 1][81]int32
	pv       [MaxPly + 1][MaxPly + 1]Move
	pvLen    [MaxPly + 1]int
	pvOut    [MaxPly + 1]Move
	nodes    uint64
	maxNodes uint64 // 0: no node limit
	deadline time.Time
	timed    bool
	stop     atomic.Bool
	aborted  bool
}

// NewSearcher returns a searcher with a transposition table of 2^ttBits
// entries of 16 bytes (20 bits: 16 MiB); ttBits 0 disables the table.
func NewSearcher(ttBits int) *Searcher {
	s := &Searcher{}
	if ttBits > 0 {
		s.tt = make([]ttEntry, 1<<ttBits)
		s.ttMask = 1<<ttBits - 1
		s.useTT = true
	}
	return s
}

// Clear forgets everything learnt: the table, killers and history. A
// searcher cleared before each game plays the same moves for the same game.
func (s *Searcher) Clear() {
	clear(s.tt)
	s.killers = [MaxPly + 1][2]Move{}
	s.history = [2][81]int32{}
}

// Stop asks a running search to return as soon as possible; it is safe to
// call from another goroutine. The next Search resets it.
func (s *Searcher) Stop() { s.stop.Store(true) }

// Search finds a move for the side to move of b (NoMove if the game is
// over). Depth 1 always completes; deeper iterations stop at a time or node
// limit, at Stop or when ctx is done. A ctx that can be cancelled costs
// three allocations per search (context.AfterFunc), none per node.
func (s *Searcher) Search(ctx context.Context, b *Board, lim Limits) Info {
	start := time.Now()
	s.b = *b
	s.nodes = 0
	s.aborted = false
	s.stop.Store(false)
	s.timed = lim.Time > 0
	s.deadline = start.Add(lim.Time)
	s.maxNodes = lim.Nodes
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, s.Stop)()
	}
	maxDepth := MaxPly - b.ply
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, maxDepth)
	}
	var info Info
	var rootMoves [81]Move
	ms := s.b.Moves(rootMoves[:0])
	if len(ms) == 0 {
		return Info{Move: NoMove}
	}
	info.Move = ms[0]
	for depth := 1; depth <= max(maxDepth, 1); depth++ {
		if depth > 1 && (s.stop.Load() || ctx.Err() != nil) {
			break
		}
		score := s.negamax(depth, 0, -Infinity, Infinity)
		if s.aborted && depth > 1 {
			break
		}
		info.Depth, info.Score = depth, score
		n := copy(s.pvOut[:], s.pv[0][:s.pvLen[0]])
		info.PV = s.pvOut[:n]
		if n > 0 {
			info.Move = info.PV[0]
		}
		// A proven result does not change with depth.
		if info.Forced() && depth >= Mate-abs(score) || s.aborted {
			break
		}
		if s.timed && time.Since(start) > lim.Time/2 {
			break // the next iteration would not finish
		}
	}
	info.Nodes = s.nodes
	info.Elapsed = time.Since(start)
	return info
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// poll checks the clock, the node limit and the stop flag; called every
// 1024 nodes.
func (s *Searcher) poll() bool {
	if s.stop.Load() || s.timed && time.Now().After(s.deadline) || s.maxNodes > 0 && s.nodes >= s.maxNodes {
		s.aborted = true
	}
	return s.aborted
}

func (s *Searcher) negamax(depth, ply, alpha, beta int) int {
	b := &s.b
	s.pvLen[ply] = 0
	s.nodes++
	switch b.result {
	case Draw:
		return 0
	case XWin, OWin: // the side that just moved won
		return -(Mate - ply)
	}
	if depth <= 0 {
		return b.Evaluate()
	}
	if s.nodes&1023 == 0 && s.poll() || s.aborted {
		return 0
	}
	var entry *ttEntry
	ttMove := NoMove
	if s.useTT {
		entry = &s.tt[b.hash&s.ttMask]
		if entry.key == b.hash && entry.flag != ttNone {
			ttMove = entry.move
			// Only an entry of the same depth answers, so that a search
			// with the table returns exactly the value of one without it.
			if ply > 0 && int(entry.depth) == depth {
				v := scoreFromTT(int(entry.score), ply)
				if entry.flag == ttExact || entry.flag == ttLower && v >= beta || entry.flag == ttUpper && v <= alpha {
					return v
				}
			}
		}
	}
	moves := b.Moves(s.moves[ply][:0])
	scores := s.scores[ply][:len(moves)]
	k0, k1 := s.killers[ply][0], s.killers[ply][1]
	hist := &s.history[b.side]
	for i, m := range moves {
		switch m {
		case ttMove:
			scores[i] = 1 << 30
		case k0:
			scores[i] = 1 << 29
		case k1:
			scores[i] = 1 << 28
		default:
			scores[i] = hist[m]
		}
	}
	alpha0 := alpha
	best, bestMove := -Infinity, NoMove
	for i := range moves {
		// Selection sort: a cut-off usually comes within the first moves.
		j := i
		for k := i + 1; k < len(moves); k++ {
			if scores[k] > scores[j] {
				j = k
			}
		}
		moves[i], moves[j] = moves[j], moves[i]
		scores[i], scores[j] = scores[j], scores[i]
		m := moves[i]
		b.Make(m)
		v := -s.negamax(depth-1, ply+1, -beta, -alpha)
		b.Unmake()
		if s.aborted {
			return 0
		}
		if v > best {
			best, bestMove = v, m
			if v > alpha {
				alpha = v
				s.pv[ply][0] = m
				copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
				s.pvLen[ply] = s.pvLen[ply+1] + 1
				if v >= beta {
					if m != k0 {
						s.killers[ply][0], s.killers[ply][1] = m, k0
					}
					if hist[m] += int32(depth * depth); hist[m] > 1<<24 {
						for i := range hist {
							hist[i] /= 2
						}
					}
					break
				}
			}
		}
	}
	if entry != nil {
		flag := ttExact
		switch {
		case best <= alpha0:
			flag = ttUpper
		case best >= beta:
			flag = ttLower
		}
		*entry = ttEntry{key: b.hash, score: int16(scoreToTT(best, ply)), depth: int8(depth), flag: flag, move: bestMove}
	}
	return best
}

// Mate scores are stored relative to the node, not the root, so that an
// entry reached by another path reads the same distance to the result.
func scoreToTT(v, ply int) int {
	switch {
	case v > MateBound:
		return v + ply
	case v < -MateBound:
		return v - ply
	}
	return v
}

func scoreFromTT(v, ply int) int {
	switch {
	case v > MateBound:
		return v - ply
	case v < -MateBound:
		return v + ply
	}
	return v
}
