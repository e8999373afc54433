package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// cachePlies is how many plies below a task's root the counter consults and
// fills the worker's persistent cache: deep enough that another task (or a
// job split at another depth) finds the big subtrees there, shallow enough
// that Badger, much slower than the in-memory memo, stays off the hot path.
const cachePlies = 2

// NewRunner implements tasks.Kind.
func (Count) NewRunner(env tasks.Env) tasks.Runner {
	return &countRunner{cache: env.Cache, memos: sharedMemos.Get(env)}
}

// sharedMemos is the countMemos of a worker process.
var sharedMemos = tasks.NewShared(func() *countMemos { return &countMemos{} })

// countMemos holds the memo of the last game counted, which the runners of
// one worker process share (tasks.Shared): tasks of one job share most
// of their subtrees below the split depth, and with a memo each, each slot
// would count most of what the other had (BenchmarkCountTasks444). One
// game at a time bounds the memory.
type countMemos struct {
	mu   sync.Mutex
	game [3]int
	memo *count.Memo
}

// get returns the memo of g, replacing that of another game.
func (s *countMemos) get(g *mnk.Game) *count.Memo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key := [3]int{g.Rows, g.Cols, g.K}; s.memo == nil || s.game != key {
		s.game, s.memo = key, count.NewMemo(g)
	}
	return s.memo
}

// countRunner counts with a Counter of its own on the shared memo.
type countRunner struct {
	cache   tasks.Cache
	memos   *countMemos
	counter *count.Counter
}

func (r *countRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var t countTask
	if err := json.Unmarshal(payload, &t); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.count task: %w", err))
	}
	p := CountParams{Rows: t.Rows, Cols: t.Cols, K: t.K, SplitDepth: -1}
	g, err := p.Validate()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	pos := mnk.Position{X: t.X, O: t.O}
	if err := g.Valid(pos); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.count task position: %w", err))
	}
	if memo := r.memos.get(g); r.counter == nil || r.counter.Memo() != memo {
		r.counter = memo.NewCounter()
	}
	if r.cache != nil {
		r.counter.SetCache(statsCache{cache: r.cache, prefix: fmt.Appendf(nil, "mnk/%dx%dk%d/", g.Rows, g.Cols, g.K)}, pos.Ply()+cachePlies)
	}
	hits := r.counter.CacheHits()
	// Both stop soon after ctx is done (a worker handing its tasks back, a
	// cancelled job), keeping nothing unfinished in the memo or the cache.
	st, err := r.counter.CountContext(ctx, pos)
	if err != nil {
		return tasks.Output{}, err
	}
	pc, err := count.PositionsContext(ctx, g, pos)
	if err != nil {
		return tasks.Output{}, err
	}
	res := countResult{
		Nodes: st.Nodes, Draws: st.Draws, CanonicalGames: st.CanonicalGames, Value: st.Value,
		Positions: pc.Positions, Canonical: pc.Canonical, Terminal: pc.Terminal, CanonicalTerminal: pc.CanonicalTerminal,
	}
	lo, hi := len(st.Wins), 0
	for l, w := range st.Wins {
		if w != 0 {
			lo, hi = min(lo, l), l+1
		}
	}
	if lo < hi {
		res.WinsFrom, res.Wins = lo, st.Wins[lo:hi]
	}
	last := 0
	for ply, c := range pc.ByPly {
		if c != 0 {
			last = ply + 1
		}
	}
	res.ByPly = pc.ByPly[:last]
	data, err := json.Marshal(res)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data, CacheHits: int64(r.counter.CacheHits() - hits)}, nil
}

// statsCache stores a counter's statistics of shallow positions in the
// worker's Badger cache.
type statsCache struct {
	cache  tasks.Cache
	prefix []byte
}

func (c statsCache) key(p mnk.Position) []byte { return positionKey(c.prefix, p) }

func (c statsCache) Load(p mnk.Position) (count.Stats, bool) {
	v, ok, err := c.cache.Get(c.key(p))
	if err != nil || !ok {
		return count.Stats{}, false
	}
	var s count.Stats
	if err := s.UnmarshalBinary(v); err != nil {
		return count.Stats{}, false
	}
	return s, true
}

func (c statsCache) Store(p mnk.Position, s count.Stats) {
	v, err := s.MarshalBinary()
	if err != nil {
		return
	}
	_ = c.cache.Put(c.key(p), v)
}
