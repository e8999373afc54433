package embedded

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/woprlabs/wopr/internal/broker"
)

// A lender lets the readers of a cluster whose every process runs on this
// machine (the embedded default when it does not listen) read the pieces
// of an input file in place, where the client found them, instead of from
// the bucket of pieces: the client names each piece by its content, as
// broker.Objects.UploadContent does, and the lender records where it is
// (broker.Objects.UploadFileRange). Stored, every byte of a corpus is
// taken in, written and served again by the server, a piece at a time: on
// the embedded default that cost as much as the job lost against holding
// the whole input in memory (docs/benchmarks.md, the appendix).
//
// A piece's place is kept twice: in memory, for the readers of the
// process, whose connections share the lender, which so read a piece with
// no request at all (from the bucket it takes two: the piece's key, not
// found, then its place), and in the bucket of pieces (the reference that
// Lend returns), for a reader in another process on this machine (analyze
// report --wait resuming a job). Either way the reader checks the bytes it
// reads against their CRC: a file changed since is an error that names
// it, never a wrong piece.
type lender struct {
	mu     sync.Mutex
	places map[string]filePlace // piece key -> where it is
}

var _ broker.Lender = (*lender)(nil)

func newLender() *lender { return &lender{places: map[string]filePlace{}} }

// filePlace is where a piece is in a file, and the CRC-32C of its bytes
// there: also, as JSON, its reference in the bucket of pieces. A reader
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

// Lend records where the piece key is, in memory, and returns its place
// for the bucket.
func (l *lender) Lend(key string, data []byte, path string, at int64) ([]byte, error) {
	p := filePlace{Path: path, Offset: at, Length: len(data), CRC: crc32.Checksum(data, castagnoli)}
	ref, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.places[key] = p
	l.mu.Unlock()
	return ref, nil
}

// Lent reads the piece key from its place recorded in memory, if there is
// one.
func (l *lender) Lent(key string) ([]byte, bool, error) {
	l.mu.Lock()
	p, ok := l.places[key]
	l.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	data, err := p.read()
	return data, true, err
}

// Read reads a piece from its place as the bucket has it.
func (l *lender) Read(ref []byte) ([]byte, error) {
	var p filePlace
	if err := json.Unmarshal(ref, &p); err != nil {
		return nil, fmt.Errorf("its place %q: %w", ref, err)
	}
	return p.read()
}

// Forget forgets the place of the piece key.
func (l *lender) Forget(key string) {
	l.mu.Lock()
	delete(l.places, key)
	l.mu.Unlock()
}

// ForgetAll forgets every place.
func (l *lender) ForgetAll() {
	l.mu.Lock()
	clear(l.places)
	l.mu.Unlock()
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
