package broker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// A Lender lets the readers of a cluster whose every process runs on the
// client's machine (pkg/embedded's) read the pieces of an input file in
// place, where the client found them, instead of from the bucket of
// pieces: the client names each piece by its content, as UploadContent
// does, and UploadFileRange has the lender record where it is. The bucket
// then holds, under refPrefix and the piece's key, the reference that the
// lender returns, for a reader in another process on the machine; Get
// reads a piece from the lender's memory (Lent), from the bucket, or from
// its reference (Read), in that order. A Lender is safe for concurrent
// use.
type Lender interface {
	// Lend records that the piece key is data, the bytes of the file at
	// path from offset at, and returns the reference to store for readers
	// in other processes.
	Lend(key string, data []byte, path string, at int64) (ref []byte, err error)
	// Lent reads the piece key from where Lend recorded it in this
	// process; ok is false if it recorded no such piece.
	Lent(key string) (data []byte, ok bool, err error)
	// Read reads the piece that a reference made by Lend, in this process
	// or another, names.
	Read(ref []byte) ([]byte, error)
	// Forget forgets where the piece key is.
	Forget(key string)
	// ForgetAll forgets where every piece is.
	ForgetAll()
}

// refPrefix starts the keys of the references of lent pieces in the
// bucket.
const refPrefix = "at."

// SetLender has UploadFileRange leave pieces in their files, and Get read
// them there, through l. Only for a cluster whose every reader is on this
// machine, and before o is used.
func (o *Objects) SetLender(l Lender) { o.lender = l }

// Lends tells whether UploadFileRange leaves pieces in their files.
func (o *Objects) Lends() bool { return o.lender != nil }

// UploadFileRange names data, bytes at to at+len(data) of the file path,
// as UploadContent does. With a Lender it has the lender record where data
// is instead of storing it; without one, or for data that does not fit a
// message, it is UploadContent. path should be absolute: readers in other
// processes look for it there. It may be called from several goroutines
// at once.
func (o *Objects) UploadFileRange(ctx context.Context, data []byte, path string, at int64) (string, error) {
	if o.lender == nil || at < 0 || !o.fitsPiece(data) {
		return o.UploadContent(ctx, data)
	}
	key := contentKey(data)
	ref, err := o.lender.Lend(key, data, path, at)
	if err != nil {
		return "", fmt.Errorf("lend piece %s: %w", key, err)
	}
	// Put, not Create: the last place recorded wins, for a file that moved.
	if _, err := o.pieces.Put(ctx, refPrefix+key, ref); err != nil {
		return "", fmt.Errorf("store the place of piece %s: %w", key, err)
	}
	return piecePrefix + key, nil
}

// getPiece reads the piece key: from where the lender recorded it in this
// process, from the bucket, or from its reference in the bucket, in that
// order. The first error is the one returned when all fail.
func (o *Objects) getPiece(ctx context.Context, key string) ([]byte, error) {
	var lentErr error
	if o.lender != nil {
		data, ok, err := o.lender.Lent(key)
		if ok && err == nil {
			return data, nil
		}
		lentErr = err
	}
	e, err := o.pieces.Get(ctx, key)
	if err == nil {
		return e.Value(), nil
	}
	if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, errors.Join(lentErr, err)
	}
	if lentErr != nil {
		return nil, lentErr
	}
	e, rerr := o.pieces.Get(ctx, refPrefix+key)
	if errors.Is(rerr, jetstream.ErrKeyNotFound) {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	if o.lender == nil {
		return nil, fmt.Errorf("left in a file at %s, and no lender here reads it", e.Value())
	}
	return o.lender.Read(e.Value())
}
