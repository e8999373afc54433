package levels

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Record is a position of a ply, up to symmetry, with its numbers: Paths,
// the move sequences from the empty board that reach a position of its
// orbit, and CPaths, the paths of the game tree up to symmetry (each
// distinct child orbit of a node is one edge). Both fit 64 bits on every
// board of up to 25 cells: a position with a stones of X and b of O is
// reached by at most a! b! sequences, and 13! 12! < 2^62.
type Record struct {
	Key    Key
	Paths  uint64
	CPaths uint64
}

// pieceMagic starts every piece: the format's name and version.
var pieceMagic = []byte("wlv2")

// A piece is one sorted run of records: the magic, the number of records
// (uvarint), then for each record the difference of its key from the last
// one's (uvarint; the first from 0), Paths and CPaths (uvarints). Keys
// increase strictly. A position takes about 10 bytes (4x5 k=4).

// encodeRun appends the piece of recs, sorted by key and without
// duplicates, to dst.
func encodeRun(dst []byte, recs []Record) []byte {
	dst = append(dst, pieceMagic...)
	dst = binary.AppendUvarint(dst, uint64(len(recs)))
	var last Key
	for _, r := range recs {
		dst = binary.AppendUvarint(dst, uint64(r.Key-last))
		dst = binary.AppendUvarint(dst, r.Paths)
		dst = binary.AppendUvarint(dst, r.CPaths)
		last = r.Key
	}
	return dst
}

// runWriter encodes a run a record at a time, for one too big to hold
// as records.
type runWriter struct {
	body []byte
	n    uint64
	last Key
}

func (w *runWriter) add(r Record) {
	w.body = binary.AppendUvarint(w.body, uint64(r.Key-w.last))
	w.body = binary.AppendUvarint(w.body, r.Paths)
	w.body = binary.AppendUvarint(w.body, r.CPaths)
	w.last = r.Key
	w.n++
}

// piece returns the piece of the records added.
func (w *runWriter) piece() []byte {
	p := append([]byte(nil), pieceMagic...)
	p = binary.AppendUvarint(p, w.n)
	return append(p, w.body...)
}

// errCorrupt marks a piece that cannot be read.
var errCorrupt = errors.New("corrupt piece")

// runReader reads the records of a piece, in order.
type runReader interface {
	// next returns the next record; false at the end.
	next() (Record, bool, error)
}

// byteRun reads a piece held in memory.
type byteRun struct {
	data []byte
	left uint64
	last Key
}

func newByteRun(data []byte) (*byteRun, error) {
	if len(data) < len(pieceMagic) || string(data[:len(pieceMagic)]) != string(pieceMagic) {
		return nil, fmt.Errorf("%w: no magic", errCorrupt)
	}
	data = data[len(pieceMagic):]
	n, w := binary.Uvarint(data)
	if w <= 0 {
		return nil, fmt.Errorf("%w: bad length", errCorrupt)
	}
	return &byteRun{data: data[w:], left: n}, nil
}

func (r *byteRun) next() (Record, bool, error) {
	if r.left == 0 {
		if len(r.data) != 0 {
			return Record{}, false, fmt.Errorf("%w: %d bytes past the last record", errCorrupt, len(r.data))
		}
		return Record{}, false, nil
	}
	var v [3]uint64
	for i := range v {
		x, w := binary.Uvarint(r.data)
		if w <= 0 {
			return Record{}, false, fmt.Errorf("%w: truncated record", errCorrupt)
		}
		v[i], r.data = x, r.data[w:]
	}
	if uint64(r.last)+v[0] < uint64(r.last) {
		return Record{}, false, fmt.Errorf("%w: key past 64 bits", errCorrupt)
	}
	r.left--
	r.last += Key(v[0])
	return Record{Key: r.last, Paths: v[1], CPaths: v[2]}, true, nil
}

// streamRun reads a run from a spill file.
type streamRun struct {
	r    *bufio.Reader
	left uint64
	last Key
}

func newStreamRun(r io.Reader) (*streamRun, error) {
	br := bufio.NewReaderSize(r, 16<<10)
	magic := make([]byte, len(pieceMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != string(pieceMagic) {
		return nil, fmt.Errorf("%w: spilled run without magic", errCorrupt)
	}
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("%w: spilled run: %v", errCorrupt, err)
	}
	return &streamRun{r: br, left: n}, nil
}

func (r *streamRun) next() (Record, bool, error) {
	if r.left == 0 {
		return Record{}, false, nil
	}
	var v [3]uint64
	for i := range v {
		x, err := binary.ReadUvarint(r.r)
		if err != nil {
			return Record{}, false, fmt.Errorf("%w: spilled run: %v", errCorrupt, err)
		}
		v[i] = x
	}
	r.left--
	r.last += Key(v[0])
	return Record{Key: r.last, Paths: v[1], CPaths: v[2]}, true, nil
}

// merger merges sorted runs into one sorted stream, adding the numbers of
// records with the same key. It checks that each run's keys increase.
// The pieces of one shard hold distinct positions (each is made whole by
// one task), but the sum keeps the count exact if they ever do not.
type merger struct {
	runs []runReader
	heap []mergeItem // a min-heap by key
}

type mergeItem struct {
	rec Record
	run int
}

func newMerger(runs []runReader) (*merger, error) {
	m := &merger{runs: runs}
	for i, r := range runs {
		rec, ok, err := r.next()
		if err != nil {
			return nil, err
		}
		if ok {
			m.heap = append(m.heap, mergeItem{rec, i})
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, nil
}

func (m *merger) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].rec.Key < h[l].rec.Key {
			l = r
		}
		if h[i].rec.Key <= h[l].rec.Key {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// pop takes the smallest record of the heap and puts the next of its run
// in its place.
func (m *merger) pop() (Record, error) {
	top := m.heap[0]
	rec, ok, err := m.runs[top.run].next()
	if err != nil {
		return Record{}, err
	}
	if ok {
		if rec.Key <= top.rec.Key {
			return Record{}, fmt.Errorf("%w: keys out of order", errCorrupt)
		}
		m.heap[0].rec = rec
	} else {
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
	}
	if len(m.heap) > 0 {
		m.down(0)
	}
	return top.rec, nil
}

// next returns the next position with the sum of its numbers over the
// runs; false at the end.
func (m *merger) next() (Record, bool, error) {
	if len(m.heap) == 0 {
		return Record{}, false, nil
	}
	rec, err := m.pop()
	if err != nil {
		return Record{}, false, err
	}
	for len(m.heap) > 0 && m.heap[0].rec.Key == rec.Key {
		r, err := m.pop()
		if err != nil {
			return Record{}, false, err
		}
		if rec.Paths, err = add64(rec.Paths, r.Paths); err != nil {
			return Record{}, false, err
		}
		if rec.CPaths, err = add64(rec.CPaths, r.CPaths); err != nil {
			return Record{}, false, err
		}
	}
	return rec, true, nil
}

// errOverflow is a number of paths past 64 bits, which no board of up to
// MaxCells cells has: a bug or a damaged piece.
var errOverflow = errors.New("paths overflow 64 bits")

func add64(a, b uint64) (uint64, error) {
	s := a + b
	if s < a {
		return 0, errOverflow
	}
	return s, nil
}
