package levels

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"sync"
	"time"
	"unsafe"
)

// Store moves pieces between the tasks of consecutive plies.
type Store interface {
	// Get returns the piece name, or an error (one wrapping ErrNoPiece if
	// there is none).
	Get(ctx context.Context, name string) ([]byte, error)
	// Put stores the piece name, replacing one of the same name (a task
	// run twice writes the same records).
	Put(ctx context.Context, name string, data []byte) error
}

// ErrNoPiece is a piece that is not in the store.
var ErrNoPiece = errors.New("no such piece")

// Task is one shard of one ply.
type Task struct {
	Ply, Shard int
	// Shards is the number of shards of every ply past the first.
	Shards int
	// Prefix starts the names of the job's pieces.
	Prefix string
}

// PieceName is the name of the piece of ply's shard dest written by the
// task of the ply before that expanded shard src.
func PieceName(prefix string, ply, dest, src int) string {
	return fmt.Sprintf("%s/p%02d/d%04d/s%04d", prefix, ply, dest, src)
}

// RootShard is the shard of the empty board: ply 0 has one task, for it.
func RootShard(shards int) int { return ShardOf(0, shards) }

// ShardOf returns the shard, of shards, that owns the position of key: a
// hash of the stones of the player who just moved, so that a group of
// parents (see moverShift) is one shard's.
func ShardOf(k Key, shards int) int {
	h := uint64(k.moved())
	// splitmix64's finaliser: every bit of the stones moves the shard.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	hi, _ := bits.Mul64(h, uint64(shards))
	return int(hi)
}

// Sources returns the shards of the ply before t's whose tasks wrote
// pieces for t: the root's alone for ply 1, every shard past it.
func (t Task) Sources() []int {
	switch {
	case t.Ply == 0:
		return nil
	case t.Ply == 1:
		return []int{RootShard(t.Shards)}
	}
	s := make([]int, t.Shards)
	for i := range s {
		s[i] = i
	}
	return s
}

// Options bound a task's resources.
type Options struct {
	// Memory is the most bytes the task's records may take: the pieces it
	// reads, the table of one group's children (at most 544 KiB on 4x5,
	// 4.3 MiB on 5x5, whatever the budget) and the children it holds
	// before they spill to disk.
	Memory int64
	// TempDir is where children spill (the system's default if empty).
	TempDir string
}

// MinMemory is the least Options.Memory a task takes: a spill every few
// thousand children, which makes a slow count but an exact one.
const MinMemory = 64 << 10

// recordBytes is what a record held in memory takes.
const recordBytes = 24

// Stats are the figures of one shard of one ply (or, added up, of a ply
// or a whole count).
type Stats struct {
	// Positions counts the positions of the shard; Canonical those up to
	// symmetry.
	Positions uint64 `json:"positions"`
	Canonical uint64 `json:"canonical"`
	// Nodes is the number of move sequences that reach them: nodes of the
	// game tree.
	Nodes U128 `json:"nodes"`
	// Terminal and CanonicalTerminal count the positions where the game
	// is over, by result: X won, O won, drawn.
	Terminal          [3]uint64 `json:"terminal"`
	CanonicalTerminal [3]uint64 `json:"canonical_terminal"`
	// Games counts the games that end in them, by result;
	// CanonicalGames the games of the tree up to symmetry.
	Games          [3]U128 `json:"games"`
	CanonicalGames U128    `json:"canonical_games"`
	// Children counts the child records the shard's positions made (one
	// per distinct child orbit of each), before they were merged.
	Children uint64 `json:"children"`
	// BytesIn and BytesOut count the bytes of the pieces read and written;
	// Spills the runs written to disk past the memory budget.
	BytesIn  uint64 `json:"bytes_in"`
	BytesOut uint64 `json:"bytes_out"`
	Spills   int    `json:"spills"`
	// Seconds is the task's time.
	Seconds float64 `json:"seconds"`
	// Read holds the digests of the pieces the task read, one for each of
	// Task.Sources, and Wrote those of the pieces it wrote, one for each
	// shard of the next ply, so that whoever has both tasks' figures can
	// tell that a piece was read as it was written (CheckPieces). Add
	// leaves them out.
	Read  []Digest `json:"read,omitempty"`
	Wrote []Digest `json:"wrote,omitempty"`
}

// Digest is the first 128 bits of a piece's SHA-256: enough that no one
// can make another piece with the same digest.
type Digest [16]byte

func digestOf(data []byte) Digest {
	sum := sha256.Sum256(data)
	return Digest(sum[:16])
}

// MarshalText writes the digest in hexadecimal.
func (d Digest) MarshalText() ([]byte, error) { return hex.AppendEncode(nil, d[:]), nil }

// UnmarshalText reads what MarshalText writes.
func (d *Digest) UnmarshalText(text []byte) error {
	if hex.DecodedLen(len(text)) != len(d) {
		return fmt.Errorf("levels: digest %q: want %d hexadecimal digits", text, 2*len(d))
	}
	_, err := hex.Decode(d[:], text)
	return err
}

// CheckPieces tells whether the pieces that the task of ply t.Ply, shard
// t.Shard read (its figures, reader) are those that the tasks of the ply
// before wrote for it (writers, by source shard; nil for a task whose
// figures are missing, which is left out). A piece changed between the
// two, by a worker that could write the store, fails the check, which
// names it.
func CheckPieces(t Task, reader Stats, writers map[int]*Stats) error {
	sources := t.Sources()
	if len(reader.Read) != len(sources) {
		return fmt.Errorf("levels: task of ply %d shard %d read %d pieces, not %d", t.Ply, t.Shard, len(reader.Read), len(sources))
	}
	for i, src := range sources {
		w := writers[src]
		if w == nil {
			continue
		}
		if len(w.Wrote) != t.Shards {
			return fmt.Errorf("levels: task of ply %d shard %d wrote %d pieces, not %d", t.Ply-1, src, len(w.Wrote), t.Shards)
		}
		if w.Wrote[t.Shard] != reader.Read[i] {
			return fmt.Errorf("levels: piece %s was changed between the task that wrote it and the task that read it", PieceName(t.Prefix, t.Ply, t.Shard, src))
		}
	}
	return nil
}

// Results index Stats.Terminal, Stats.Games and the like.
const (
	XWins = iota
	OWins
	Draws
)

// Add adds o's figures to s.
func (s *Stats) Add(o Stats) {
	s.Positions += o.Positions
	s.Canonical += o.Canonical
	s.Nodes = s.Nodes.Add(o.Nodes)
	for i := range 3 {
		s.Terminal[i] += o.Terminal[i]
		s.CanonicalTerminal[i] += o.CanonicalTerminal[i]
		s.Games[i] = s.Games[i].Add(o.Games[i])
	}
	s.CanonicalGames = s.CanonicalGames.Add(o.CanonicalGames)
	s.Children += o.Children
	s.BytesIn += o.BytesIn
	s.BytesOut += o.BytesOut
	s.Spills += o.Spills
	s.Seconds += o.Seconds
}

// Run reads the pieces of task t's shard, counts its positions and writes
// their children to the pieces of the next ply, one for each of its
// shards (an empty one too, so that a missing piece is an error, never a
// shard with no positions).
func (b *Board) Run(ctx context.Context, store Store, t Task, opt Options) (Stats, error) {
	start := time.Now()
	if t.Ply < 0 || t.Ply > b.cells || t.Shards < 1 || t.Shard < 0 || t.Shard >= t.Shards {
		return Stats{}, fmt.Errorf("levels: task ply %d shard %d of %d is out of range for a %d-cell board", t.Ply, t.Shard, t.Shards, b.cells)
	}
	var st Stats
	var runs []runReader
	var inBytes int64
	// Pieces are held in memory up to a quarter of the budget, the rest
	// read from a temporary file.
	var inFile *os.File
	defer func() {
		if inFile != nil {
			inFile.Close()
			os.Remove(inFile.Name())
		}
	}()
	for _, src := range t.Sources() {
		name := PieceName(t.Prefix, t.Ply, t.Shard, src)
		data, err := store.Get(ctx, name)
		if err != nil {
			return Stats{}, err
		}
		st.BytesIn += uint64(len(data))
		st.Read = append(st.Read, digestOf(data))
		if opt.Memory <= 0 || inBytes+int64(len(data)) <= opt.Memory/4 {
			r, err := newByteRun(data)
			if err != nil {
				return Stats{}, fmt.Errorf("piece %s: %w", name, err)
			}
			runs = append(runs, r)
			inBytes += int64(len(data))
			continue
		}
		if inFile == nil {
			if inFile, err = os.CreateTemp(opt.TempDir, "wopr-levels-in-*"); err != nil {
				return Stats{}, fmt.Errorf("levels: %w", err)
			}
		}
		off, err := inFile.Seek(0, io.SeekEnd)
		if err == nil {
			_, err = inFile.Write(data)
		}
		if err != nil {
			return Stats{}, fmt.Errorf("levels: %w", err)
		}
		r, err := newStreamRun(io.NewSectionReader(inFile, off, int64(len(data))))
		if err != nil {
			return Stats{}, fmt.Errorf("piece %s: %w", name, err)
		}
		runs = append(runs, r)
		st.Spills++
	}
	var in func() (Record, bool, error)
	if t.Ply == 0 {
		done := t.Shard != RootShard(t.Shards)
		in = func() (Record, bool, error) {
			if done {
				return Record{}, false, nil
			}
			done = true
			return Record{Key: 0, Paths: 1, CPaths: 1}, true, nil
		}
	} else {
		m, err := newMerger(runs)
		if err != nil {
			return Stats{}, err
		}
		in = m.next
	}
	var out *spiller
	if t.Ply < b.cells {
		budget := opt.Memory - inBytes - b.groupBytes()
		if opt.Memory <= 0 {
			budget = 1 << 40
		}
		out = newSpiller(t.Shards, budget, opt.TempDir)
		defer out.close()
	}
	x := expander{b: b, out: out}
	for i := 0; ; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return Stats{}, ctx.Err()
		}
		rec, ok, err := in()
		if err != nil {
			return Stats{}, err
		}
		if !ok {
			break
		}
		if err := x.count(&st, rec, t.Ply); err != nil {
			return Stats{}, err
		}
	}
	if err := x.flush(); err != nil {
		return Stats{}, err
	}
	if out != nil {
		for dest := range t.Shards {
			data, err := out.piece(dest)
			if err != nil {
				return Stats{}, err
			}
			if err := store.Put(ctx, PieceName(t.Prefix, t.Ply+1, dest, t.Shard), data); err != nil {
				return Stats{}, err
			}
			st.BytesOut += uint64(len(data))
			st.Wrote = append(st.Wrote, digestOf(data))
		}
		st.Spills += out.spills
	}
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}

// expander counts positions and makes their children. The positions
// come in key order, so in groups of parents with the same stones of the
// player who just moved (see moverShift); the children of a group are
// added up in a table that holds that group's alone, small enough for the
// cache, and go to the spiller when the group ends, each child once: no
// other group, in this task or any other, makes a record of it.
type expander struct {
	b       *Board
	out     *spiller
	group   uint32    // the stones of the player who just moved, in the group
	started bool      // group is the first group's
	imMoved [8]uint32 // group's images under the symmetries
	parent  uint32    // numbers the parents, for groupTable
	tab     groupTable
}

// count adds position rec of ply to st and, if the game goes on there,
// adds its children to its group's.
func (x *expander) count(st *Stats, rec Record, ply int) error {
	b := x.b
	orbit := uint64(rec.Key.Orbit())
	st.Canonical++
	st.Positions += orbit
	st.Nodes = st.Nodes.Add64(rec.Paths)
	res := -1
	switch {
	case rec.Key&flagWin != 0 && ply%2 == 1:
		res = XWins
	case rec.Key&flagWin != 0:
		res = OWins
	case rec.Key&flagFull != 0:
		res = Draws
	}
	if res >= 0 {
		st.Terminal[res] += orbit
		st.CanonicalTerminal[res]++
		st.Games[res] = st.Games[res].Add64(rec.Paths)
		st.CanonicalGames = st.CanonicalGames.Add64(rec.CPaths)
		return nil
	}
	if x.out == nil {
		return fmt.Errorf("levels: position %s of the last ply is not over", b.String(rec.Key, ply))
	}
	mover, moved := rec.Key.Stones()
	if moved != x.group || !x.started {
		if err := x.flush(); err != nil {
			return err
		}
		x.group, x.started = moved, true
		for s := range b.nsym {
			x.imMoved[s] = b.image(moved, s)
		}
	}
	// A child's player to move is the parent's player who just moved, and
	// the other way round.
	var imMover [8]uint32
	for s := range b.nsym {
		imMover[s] = b.image(mover, s)
	}
	full := ply+1 == b.cells
	for empty := b.full &^ (mover | moved); empty != 0; empty &= empty - 1 {
		c := bits.TrailingZeros32(empty)
		var played [8]uint32
		ci := &b.cellImg[c]
		for s := range b.nsym {
			played[s] = imMover[s] | ci[s]
		}
		k := b.canon(&x.imMoved, &played)
		switch {
		case b.lineThrough(mover|1<<c, c):
			k |= flagWin
		case full:
			k |= flagFull
		}
		added, err := x.tab.add(k, rec, x.parent)
		if err != nil {
			return err
		}
		if added {
			st.Children++
		}
	}
	x.parent++
	return nil
}

// flush sends the children of the group to the spiller.
func (x *expander) flush() error {
	for _, i := range x.tab.used {
		if err := x.out.add(x.tab.slots[i].Record); err != nil {
			return err
		}
		x.tab.slots[i] = groupSlot{}
	}
	x.tab.used = x.tab.used[:0]
	return nil
}

// groupTable adds up the children of one group of parents by key, in
// open addressing. No child is the empty board, so key 0 marks a free
// slot.
type groupTable struct {
	slots []groupSlot
	used  []int32 // the slots taken, in the order they were
	shift uint    // 64 - log2(len(slots))
}

// groupSlots0 is the size of a new table.
const groupSlots0 = 64

// groupBytes bounds the bytes of a group's table on the board: parents
// with j stones of the player who just moved and m of the player to move
// make at most C(cells-j, m+1) children (each orbit has one image with
// the group's stones of the player who just moved), and the table takes
// up to twice that in slots. On 4x5 it is 544 KiB, on 5x5 4.3 MiB.
func (b *Board) groupBytes() int64 {
	most := int64(0)
	for ply := range b.cells {
		m := ply / 2
		most = max(most, binomial(b.cells-(ply-m), m+1))
	}
	slots := int64(groupSlots0)
	for slots < 2*most {
		slots *= 2
	}
	return slots * int64(unsafe.Sizeof(groupSlot{})+2)
}

// binomial returns n choose k.
func binomial(n, k int) int64 {
	if k < 0 || k > n {
		return 0
	}
	r := int64(1)
	for i := range k {
		r = r * int64(n-i) / int64(i+1)
	}
	return r
}

// groupSlot is a child and the last parent that made it.
type groupSlot struct {
	Record
	parent uint32
}

// add adds to child k, made by a move of parent number id, the parent's
// paths, and its canonical paths if it is the first move of that parent
// that makes k (each distinct child orbit of a node is one edge of the
// tree up to symmetry), which add then tells.
func (t *groupTable) add(k Key, parent Record, id uint32) (bool, error) {
	if 2*(len(t.used)+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := int(uint64(k) * 0x9e3779b97f4a7c15 >> t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		switch s.Key {
		case k:
			var err error
			if s.Paths, err = add64(s.Paths, parent.Paths); err != nil || s.parent == id {
				return false, err
			}
			s.parent = id
			s.CPaths, err = add64(s.CPaths, parent.CPaths)
			return true, err
		case 0:
			*s = groupSlot{Record{Key: k, Paths: parent.Paths, CPaths: parent.CPaths}, id}
			t.used = append(t.used, int32(i))
			return true, nil
		}
	}
}

// grow doubles the table (to groupSlots0 slots at first).
func (t *groupTable) grow() {
	old, used := t.slots, t.used
	n := max(2*len(old), groupSlots0)
	t.slots, t.used = make([]groupSlot, n), make([]int32, 0, n/2)
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for _, j := range used {
		i := int(uint64(old[j].Key) * 0x9e3779b97f4a7c15 >> t.shift)
		for t.slots[i].Key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = old[j]
		t.used = append(t.used, int32(i))
	}
}

// spiller holds the children of a task, by the shard that owns them, in
// buffers that are sorted (a radix sort) and merged only when they fill
// the memory budget, then written to a temporary file as sorted runs, or
// at the end, as the shard's piece. A sort beats a hash table here: the
// children of a shard are several times its distinct positions, and a
// radix sort passes over them in order where a table would miss the cache
// on each.
type spiller struct {
	bufs    [][]Record
	held    int // records in bufs
	limit   int // records bufs may hold
	dir     string
	files   []*os.File
	runs    [][][2]int64 // per shard: offset and length of each spilled run
	spills  int
	scratch []Record
}

// spillerRecordBytes is what a held record takes: itself and its share of
// the sort's scratch.
const spillerRecordBytes = 2 * recordBytes

func newSpiller(shards int, budget int64, dir string) *spiller {
	return &spiller{bufs: make([][]Record, shards), limit: int(max(budget/spillerRecordBytes, 1024)), dir: dir,
		files: make([]*os.File, shards), runs: make([][][2]int64, shards)}
}

func (s *spiller) add(r Record) error {
	if s.held == s.limit {
		if err := s.spillAll(); err != nil {
			return err
		}
	}
	d := ShardOf(r.Key, len(s.bufs))
	if len(s.bufs[d]) == cap(s.bufs[d]) {
		s.grow(d)
	}
	s.bufs[d] = append(s.bufs[d], r)
	s.held++
	return nil
}

// grow gives shard d's buffer room for more records: a buffer from the
// pool, or one twice as big.
func (s *spiller) grow(d int) {
	old := s.bufs[d]
	var buf []Record
	if len(old) == 0 {
		if p, ok := bufPool.Get().(*[]Record); ok {
			buf = (*p)[:0]
		}
	}
	if cap(buf) <= len(old) {
		buf = make([]Record, 0, min(max(2*cap(old), 4096), s.limit))
	}
	s.bufs[d] = append(buf, old...)
	if cap(old) > 0 {
		bufPool.Put(&old)
	}
}

// bufPool keeps the buffers of finished tasks for the next ones.
var bufPool sync.Pool

// sorted sorts shard d's buffer and adds up the records of each key.
func (s *spiller) sorted(d int) ([]Record, error) {
	recs := s.bufs[d]
	s.scratch = sortRecords(recs, s.scratch)
	out := recs[:0]
	for _, r := range recs {
		if n := len(out); n > 0 && out[n-1].Key == r.Key {
			var err error
			if out[n-1].Paths, err = add64(out[n-1].Paths, r.Paths); err != nil {
				return nil, err
			}
			if out[n-1].CPaths, err = add64(out[n-1].CPaths, r.CPaths); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// spillAll writes every shard's buffer as a sorted run to the shard's
// file.
func (s *spiller) spillAll() error {
	for d := range s.bufs {
		if len(s.bufs[d]) == 0 {
			continue
		}
		if err := s.spill(d); err != nil {
			return err
		}
	}
	s.held = 0
	return nil
}

// spill writes shard d's buffer as a sorted run to its file.
func (s *spiller) spill(d int) error {
	recs, err := s.sorted(d)
	if err != nil {
		return err
	}
	f := s.files[d]
	if f == nil {
		if f, err = os.CreateTemp(s.dir, "wopr-levels-*"); err != nil {
			return fmt.Errorf("levels: spill: %w", err)
		}
		s.files[d] = f
	}
	off, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("levels: spill: %w", err)
	}
	data := encodeRun(nil, recs)
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("levels: spill: %w", err)
	}
	s.runs[d] = append(s.runs[d], [2]int64{off, int64(len(data))})
	s.bufs[d] = recs[:0]
	s.spills++
	return nil
}

// piece returns the piece of shard d: its buffer and its spilled runs
// merged into one run.
func (s *spiller) piece(d int) ([]byte, error) {
	recs, err := s.sorted(d)
	if err != nil {
		return nil, err
	}
	defer func() {
		if buf := s.bufs[d][:0]; cap(buf) > 0 {
			bufPool.Put(&buf)
		}
		s.bufs[d] = nil
	}()
	if len(s.runs[d]) == 0 {
		return encodeRun(nil, recs), nil
	}
	runs := []runReader{&memRun{recs: recs}}
	for _, r := range s.runs[d] {
		sr, err := newStreamRun(io.NewSectionReader(s.files[d], r[0], r[1]))
		if err != nil {
			return nil, err
		}
		runs = append(runs, sr)
	}
	m, err := newMerger(runs)
	if err != nil {
		return nil, err
	}
	var w runWriter
	for {
		rec, ok, err := m.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return w.piece(), nil
		}
		w.add(rec)
	}
}

func (s *spiller) close() {
	for _, f := range s.files {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}

// memRun reads records held in memory.
type memRun struct{ recs []Record }

func (r *memRun) next() (Record, bool, error) {
	if len(r.recs) == 0 {
		return Record{}, false, nil
	}
	rec := r.recs[0]
	r.recs = r.recs[1:]
	return rec, true, nil
}
