package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// A lender lets the readers of a cluster whose every process runs on this
// machine (the embedded default when it does not listen) read the pieces
// of an input file in place, where the client found them, instead of from
// the bucket of pieces: the client names each piece by its content, as
// UploadContent does, and records where it is (UploadFileRange). Stored,
// every byte of a corpus is taken in, written and served again by the
// server, a piece at a time: on the embedded default that cost as much as
// the job lost against holding the whole input in memory
// (docs/benchmarks.md, Memory).
//
// A piece's place is kept twice: in memory, for the readers of the process
// that shares the lender (ShareLender), which so read a piece with no
// request at all (from the bucket it takes two: the piece's key, not
// found, then its place), and in the bucket of pieces under refPrefix and
// the piece's key, for a reader in another process on this machine
// (analyze report --wait resuming a job). Either way the reader
// checks the bytes it reads against their CRC: a file changed since is an
// error that names it, never a wrong piece.
type lender struct {
	mu     sync.Mutex
	places map[string]filePlace // piece key -> where it is
}

// filePlace is where a piece is in a file, and the CRC-32C of its bytes
// there: also the value of its record in the bucket of pieces. A reader
// checks the bytes it reads against the CRC, not against the piece's
// SHA-256 name, which would hash the whole input a second time: the check
// is for a file changed since, which a CRC of 32 bits misses once in four
// billion.
type filePlace struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	Length int    `json:"length"`
	CRC    uint32 `json:"crc32c"`
}

// castagnoli is the table of CRC-32C, which amd64 and arm64 compute in
// hardware.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// refPrefix starts the keys of the places of pieces in the bucket.
const refPrefix = "at."

// EnableLender has the client of these Objects name the pieces of its
// files by their place (UploadFileRange) and their readers read them
// there. Only for Objects whose cluster no process on another machine
// joins: the embedded default that does not listen.
func (o *Objects) EnableLender() { o.lender = &lender{places: map[string]filePlace{}} }

// ShareLender has the readers of these Objects (a worker's, in the
// process of from) find the places that from's client recorded in memory.
func (o *Objects) ShareLender(from *Objects) { o.lender = from.lender }

// Lends tells whether UploadFileRange leaves pieces in their files.
func (o *Objects) Lends() bool { return o.lender != nil }

// UploadFileRange names data, bytes at to at+len(data) of the file path,
// as UploadContent does. With the lender it records where data is instead
// of storing it (see lender); without it, or for data that does not fit
// a message, it is UploadContent. path should be absolute: readers in
// other processes look for it there. It may be called from several
// goroutines at once.
func (o *Objects) UploadFileRange(ctx context.Context, data []byte, path string, at int64) (string, error) {
	if o.lender == nil || at < 0 || !o.fitsPiece(data) {
		return o.UploadContent(ctx, data)
	}
	key := contentKey(data)
	p := filePlace{Path: path, Offset: at, Length: len(data), CRC: crc32.Checksum(data, castagnoli)}
	ref, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	// Put, not Create: the last place recorded wins, for a file that moved.
	if _, err := o.pieces.Put(ctx, refPrefix+key, ref); err != nil {
		return "", fmt.Errorf("store the place of piece %s: %w", key, err)
	}
	o.lender.mu.Lock()
	o.lender.places[key] = p
	o.lender.mu.Unlock()
	return piecePrefix + key, nil
}

// place returns where the piece key is, if l recorded it.
func (l *lender) place(key string) (filePlace, bool) {
	if l == nil {
		return filePlace{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.places[key]
	return p, ok
}

// forget forgets the place of the piece key.
func (l *lender) forget(key string) {
	if l != nil {
		l.mu.Lock()
		delete(l.places, key)
		l.mu.Unlock()
	}
}

// forgetAll forgets every place.
func (l *lender) forgetAll() {
	if l != nil {
		l.mu.Lock()
		clear(l.places)
		l.mu.Unlock()
	}
}

// getPiece reads the piece key: from its place recorded in memory, from
// the bucket, or from its place recorded in the bucket, in that order.
// The first error is the one returned when all fail.
func (o *Objects) getPiece(ctx context.Context, key string) ([]byte, error) {
	var placeErr error
	if p, ok := o.lender.place(key); ok {
		data, err := p.read()
		if err == nil {
			return data, nil
		}
		placeErr = err
	}
	e, err := o.pieces.Get(ctx, key)
	if err == nil {
		return e.Value(), nil
	}
	if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, errors.Join(placeErr, err)
	}
	if placeErr != nil {
		return nil, placeErr
	}
	e, rerr := o.pieces.Get(ctx, refPrefix+key)
	if errors.Is(rerr, jetstream.ErrKeyNotFound) {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	var p filePlace
	if err := json.Unmarshal(e.Value(), &p); err != nil {
		return nil, fmt.Errorf("its place %q: %w", e.Value(), err)
	}
	return p.read()
}

// read reads the piece at p, and checks it against its CRC.
func (p filePlace) read() ([]byte, error) {
	f, err := os.Open(p.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, p.Length)
	if _, err := f.ReadAt(data, p.Offset); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s, bytes %d to %d: %w", p.Path, p.Offset, p.Offset+int64(p.Length), err)
	}
	if crc32.Checksum(data, castagnoli) != p.CRC {
		return nil, fmt.Errorf("%s, bytes %d to %d: changed since the job began (the piece there is no longer the one the job named)", p.Path, p.Offset, p.Offset+int64(p.Length))
	}
	return data, nil
}
