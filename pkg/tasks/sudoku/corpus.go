package sudoku

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// A corpus is stored as the pieces of its tasks, each an object of its
// own, and a manifest that lists them: the client cuts the file as it reads
// it (UploadCorpus), so that neither it, the coordinator nor a worker ever
// holds more of a corpus than a few pieces, and a worker fetches only the
// piece of its task. The manifest is the text
//
//	wopr-sudoku-pieces/1 <puzzles per piece>
//	<first line> <puzzles> <object>
//	...
//
// one line per piece that holds puzzles (a piece of comments and blank
// lines alone is left out, as it makes no task).
const manifestMagic = "wopr-sudoku-pieces/1 "

// readBlock is how much of a file UploadCorpus reads at a time (a
// variable for the tests).
var readBlock = 4 << 20

// maxLineKept is the longest line that UploadCorpus keeps whole: a longer
// one is cut to its first maxLineKept bytes, which the parser reads as it
// reads the whole line (as too long, by its first bytes; a variable for the
// tests, above the parser's limit).
var maxLineKept = 1 << 20

// uploaders is the number of pieces stored at once.
const uploaders = 4

// UploadCorpus reads the text of the corpus file from r, cuts it into the
// pieces of per puzzles that a job with chunks of per makes its tasks of
// (as sudoku.Cut cuts a whole file), stores each piece with put (which
// names it by its content, and may be called from several goroutines at
// once) and then the manifest, and returns the input to name in
// SolveParams. put's at is where data starts in what r reads, if data is
// those bytes as they are, or -1 (a piece whose comments were left out, or
// whose lines were cut, and the manifest): a store that reads pieces in
// place, from the file, can so name them without storing them
// (broker.Objects.UploadFileRange). It holds a few pieces and one block of
// the file in memory, whatever the size of the file. An error wrapping tasks.ErrInvalid names
// the line of a piece too big for a task; an error of r is returned as it
// is, after the pieces before it were stored.
func UploadCorpus(ctx context.Context, file string, r io.Reader, per int, put func(ctx context.Context, data []byte, at int64) (string, error)) (Input, error) {
	if per < 1 || per > MaxChunk {
		return Input{}, tasks.Invalid("chunk %d: want 1 to %d puzzles per task", per, MaxChunk)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type job struct {
		i    int
		text []byte
		at   int64
	}
	var (
		mu      sync.Mutex
		names   []string // of the pieces, by index
		entries []string // the manifest's lines, without the object
		wg      sync.WaitGroup
		jobs    = make(chan job, uploaders)
	)
	for range uploaders {
		wg.Go(func() {
			for j := range jobs {
				name, err := put(ctx, j.text, j.at)
				if err != nil {
					cancel(fmt.Errorf("store a piece of %s: %w", file, err))
					continue
				}
				mu.Lock()
				names[j.i] = name
				mu.Unlock()
			}
		})
	}
	emit := func(text []byte, line, items, compacted int, at int64) error {
		if items == 0 {
			return nil // comments and blank lines only
		}
		if compacted < len(text) {
			text, at = sudoku.Compact(nil, text), -1
		} else {
			text = bytes.Clone(text)
		}
		if len(text) > maxPayload {
			return tasks.Invalid("%s:%d: the %d puzzles from this line take %d bytes, more than a task holds (%d): a 9-row grid among them spreads over too many lines",
				file, line, items, len(text), maxPayload)
		}
		mu.Lock()
		i := len(names)
		names = append(names, "")
		entries = append(entries, strconv.Itoa(line)+" "+strconv.Itoa(items)+" ")
		mu.Unlock()
		select {
		case jobs <- job{i, text, at}:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	err := cutStream(r, per, emit)
	close(jobs)
	wg.Wait()
	if err == nil {
		err = context.Cause(ctx)
	}
	var rerr readError
	if errors.As(err, &rerr) {
		// The text ends before the error: what came before is stored.
		err = rerr.err
	} else if err != nil {
		return Input{}, err
	}
	m := []byte(manifestMagic + strconv.Itoa(per) + "\n")
	for i, e := range entries {
		m = append(append(append(m, e...), names[i]...), '\n')
	}
	name, perr := put(ctx, m, -1)
	if perr != nil {
		return Input{}, fmt.Errorf("store the list of pieces of %s: %w", file, perr)
	}
	return Input{File: file, Object: name}, err
}

// Stored adapts put, which stores every piece it is given
// (broker.Objects.UploadContent), to UploadCorpus.
func Stored(put func(ctx context.Context, data []byte) (string, error)) func(ctx context.Context, data []byte, at int64) (string, error) {
	return func(ctx context.Context, data []byte, _ int64) (string, error) { return put(ctx, data) }
}

// readError is an error of the reader of cutStream.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

// cutStream cuts the text read from r as sudoku.Cut cuts it whole, a block
// at a time: each block, after the piece left over from the one before,
// is cut from its first line; the pieces but the last are final (where Cut
// cuts depends only on the lines before), the last is cut again with the
// next block. At the end of r, or at an error of r (returned as a
// readError), the text read so far is the whole text. yield's at is where
// the piece starts in what r read, or -1 for a piece that ends after the
// start of the first line cut for its length (trimLong): from there on
// the text is no longer r's bytes.
func cutStream(r io.Reader, per int, yield func(text []byte, line, items, compacted int, at int64) error) error {
	buf := make([]byte, 0, readBlock)
	line := 1                       // of buf's first line
	var pos int64                   // where buf starts in what r read
	var cutAt int64 = math.MaxInt64 // where the first line cut starts
	var rerr error
	for rerr == nil {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // a last piece as big as a block
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		fresh := buf[len(buf) : len(buf)+n]
		buf = buf[:len(buf)+n]
		if err != nil {
			rerr = err
		}
		var cut int
		if buf, cut = trimLong(buf, len(buf)-len(fresh)); cut >= 0 {
			cutAt = min(cutAt, pos+int64(cut))
		}
		end := bytes.LastIndexByte(buf, '\n') + 1
		if rerr != nil {
			end = len(buf)
		}
		if end == 0 {
			continue
		}
		// Every piece but the last is final. The pieces cover buf[:end]
		// one after another.
		var last struct {
			text                   []byte
			line, items, compacted int
			at                     int64
			ok                     bool
		}
		at := pos
		err = sudoku.CutFrom(buf[:end], line, per, maxPiece, func(text []byte, l, items, compacted int) error {
			if last.ok {
				if err := yield(last.text, last.line, last.items, last.compacted, place(last.at, len(last.text), cutAt)); err != nil {
					return err
				}
			}
			last.text, last.line, last.items, last.compacted, last.at, last.ok = text, l, items, compacted, at, true
			at += int64(len(text))
			return nil
		})
		if err != nil {
			return err
		}
		if !last.ok {
			continue
		}
		if rerr != nil {
			if err := yield(last.text, last.line, last.items, last.compacted, place(last.at, len(last.text), cutAt)); err != nil {
				return err
			}
			break
		}
		// Keep the last piece and what follows the last newline.
		from := len(buf[:end]) - len(last.text)
		line, pos = last.line, last.at
		buf = buf[:copy(buf, buf[from:])]
	}
	if rerr == io.EOF {
		return nil
	}
	return readError{rerr}
}

// place is at, for a piece of n bytes from at, if it ends before cutAt,
// or -1.
func place(at int64, n int, cutAt int64) int64 {
	if at+int64(n) > cutAt {
		return -1
	}
	return at
}

// trimLong cuts the lines of buf longer than maxLineKept to their first
// maxLineKept bytes (and their newline), from the line that holds
// buf[from] on (those before are cut already), and returns where the
// first line cut starts, or -1. Lines are found a window of maxLineKept
// bytes at a time: only a window without a newline costs more.
func trimLong(buf []byte, from int) ([]byte, int) {
	p := bytes.LastIndexByte(buf[:from], '\n') + 1
	for len(buf)-p > maxLineKept {
		k := bytes.LastIndexByte(buf[p:p+maxLineKept+1], '\n')
		if k < 0 {
			return cutLong(buf, p), p
		}
		p += k + 1
	}
	return buf, -1
}

// cutLong cuts the lines of buf from p, the start of a line, on.
func cutLong(buf []byte, p int) []byte {
	out, start := p, p
	for i := p; i < len(buf); {
		stop, nl := len(buf), false
		if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
			stop, nl = i+j, true
		}
		keep := min(stop-i, max(maxLineKept-(out-start), 0))
		out += copy(buf[out:], buf[i:i+keep])
		i = stop
		if nl {
			buf[out] = '\n'
			out, i, start = out+1, i+1, out+1
		}
	}
	return buf[:out]
}
