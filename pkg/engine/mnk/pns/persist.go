package pns

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A proof of 8,8,5 runs longer than a worker stays up, and what a df-pn
// search has done lives mostly in its table: the proof and disproof
// numbers of the positions not yet decided, which steer it back to where
// it was. The positions it has decided near the top are the cheap ones
// (a store of those answers, tried on 8,7,5, resumed a proof stopped half
// way in more nodes than the whole proof: docs/benchmarks.md). So a
// search carried across a restart carries its table: Table.WriteTo saves
// it, ReadTable loads it, and the search goes on from the same numbers.

// A saved table starts with tableMagic (set.go): its entries are x, o and
// pd as appendSet writes a set (little-endian 64-bit words), then meta,
// entryBytes in all.
const entryBytes = 3*setBytes + 8

// ErrTableMismatch is the error of a saved table of another game or size.
var ErrTableMismatch = errors.New("saved table of another game or size")

// WriteTo writes the table: a header line (the magic, the game, the number
// of entries), the entries, and the SHA-256 of all that. Solvers of the
// table may be searching meanwhile: each bucket is copied under its
// mutex, so each is as some moment left it, which is all a table needs
// (every entry is one position's numbers, right whenever it was stored).
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)
	n, err := fmt.Fprintf(bw, "%s %s %d\n", tableMagic, t.g.Spec(), len(t.entries))
	written := int64(n)
	if err != nil {
		return written, err
	}
	var buf [proofBucket * entryBytes]byte
	for b := 0; b <= int(t.mask); b++ {
		if t.locks != nil {
			t.locks[b&(proofLocks-1)].Lock()
		}
		p := buf[:0]
		for _, e := range t.entries[b*proofBucket : b*proofBucket+proofBucket] {
			p = appendSet(p, e.x)
			p = appendSet(p, e.o)
			p = appendSet(p, e.pd)
			p = binary.LittleEndian.AppendUint64(p, e.meta)
		}
		if t.locks != nil {
			t.locks[b&(proofLocks-1)].Unlock()
		}
		n, err := bw.Write(p)
		written += int64(n)
		if err != nil {
			return written, err
		}
	}
	if err := bw.Flush(); err != nil {
		return written, err
	}
	n, err = w.Write(h.Sum(nil))
	return written + int64(n), err
}

// ReadFrom reads into t, a table of the same game and size (NewTable), a
// table that WriteTo wrote. A table of another game or size is
// ErrTableMismatch; a file cut short or changed (its SHA-256) is an
// error, and leaves t empty: a table that loads is the one saved. No
// solver of t may be searching.
func (t *Table) ReadFrom(r io.Reader) (int64, error) {
	h := sha256.New()
	br := bufio.NewReaderSize(r, 1<<20)
	line, err := br.ReadString('\n')
	read := int64(len(line))
	if err != nil {
		return read, fmt.Errorf("saved table: header: %w", err)
	}
	h.Write([]byte(line))
	f := strings.Fields(line)
	if len(f) != 6 || strings.Join(f[:4], " ") != tableMagic {
		return read, fmt.Errorf("saved table: not a wopr pns table (want %q first)", tableMagic)
	}
	if entries, err := strconv.Atoi(f[5]); err != nil || f[4] != t.g.Spec() || entries != len(t.entries) {
		return read, fmt.Errorf("%w: %s with %s entries, not %s with %d", ErrTableMismatch, f[4], f[5], t.g.Spec(), len(t.entries))
	}
	fail := func(format string, args ...any) (int64, error) {
		t.Clear()
		return read, fmt.Errorf("saved table: "+format, args...)
	}
	var buf [proofBucket * entryBytes]byte
	for b := 0; b <= int(t.mask); b++ {
		if _, err := io.ReadFull(br, buf[:]); err != nil {
			return fail("bucket %d: %w", b, err)
		}
		h.Write(buf[:])
		read += int64(len(buf))
		for i := range proofBucket {
			e, p := &t.entries[b*proofBucket+i], buf[i*entryBytes:]
			e.x, p = readSet(p)
			e.o, p = readSet(p)
			e.pd, p = readSet(p)
			e.meta = binary.LittleEndian.Uint64(p)
		}
	}
	var sum [sha256.Size]byte
	if _, err := io.ReadFull(br, sum[:]); err != nil {
		return fail("its SHA-256: %w", err)
	}
	read += sha256.Size
	if string(sum[:]) != string(h.Sum(nil)) {
		return fail("its SHA-256 does not match its contents")
	}
	return read, nil
}
