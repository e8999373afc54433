// Package infile opens the files users give wopr: plain text, or text
// compressed with gzip or zstd, told apart by their first bytes (their magic
// numbers), not by their names.
package infile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Stdin is the file name that stands for standard input, as "-" does for
// most command-line tools: Open and ReadFile read standard input for it,
// and Name names it "<stdin>" in messages and reports.
const Stdin = "-"

// Name is how messages and reports name the file called name: "<stdin>"
// for Stdin, else name.
func Name(name string) string {
	if name == Stdin {
		return "<stdin>"
	}
	return name
}

// ErrFormat is the error of a file compressed in a format that ReadFile
// does not read (xz, bzip2, zip, lz4).
var ErrFormat = errors.New("compressed in a format wopr does not read (it reads plain text, gzip and zstd)")

// A DamagedError reports compressed data that breaks off early or fails its
// checks (a truncated file, a corrupt block, a wrong checksum). ReadFile
// returns the text decompressed before the damage, up to the end of its
// last complete line. That text is the file's when the file is cut short or
// only its checksum is wrong; bytes changed inside the compressed data may
// decode to other text before a check fails (gzip checks its text only at
// the end, with one CRC-32 of the whole; zstd finds most such damage in the
// block it is in).
type DamagedError struct {
	Name   string // the file
	Format string // "gzip" or "zstd"
	Line   int    // the number of complete lines read before the damage
	Err    error  // the decompressor's error
}

func (e *DamagedError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s data damaged before line 1: %v", e.Name, e.Format, e.Err)
	}
	return fmt.Sprintf("%s: %s data damaged after line %d: %v", e.Name, e.Format, e.Line, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// ReadFile reads the named file whole and returns its text and its number
// of lines (a last line without a newline counts). A gzip or zstd file is
// decompressed, counting its text as it is decompressed: more than
// MaxReadText bytes, or a zstd window over DefaultLimits.Window, is refused
// with a *LimitError as soon as the limit is passed. Anything else is text
// as it is. If the compressed data is damaged, ReadFile returns the text up
// to the end of the last complete line before the damage, its number of
// lines, and a *DamagedError. Errors opening or reading the file are
// returned as they are (an *fs.PathError), with no text.
func ReadFile(name string) (text []byte, lines int, err error) {
	var raw []byte
	if name == Stdin {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, 0, err
	}
	name = Name(name)
	format := sniff(raw)
	switch format {
	case "gzip":
		text, err = gunzip(raw)
	case "zstd":
		text, err = unzstd(raw)
	case "":
		return raw, countLines(raw), nil
	default:
		return nil, 0, fmt.Errorf("%s: %s: %w", name, format, ErrFormat)
	}
	if lerr := limitError(name, err, MaxReadText, DefaultLimits.Window); lerr != nil {
		return nil, 0, lerr
	}
	if err != nil {
		text = text[:bytes.LastIndexByte(text, '\n')+1]
		n := bytes.Count(text, []byte{'\n'})
		return text, n, &DamagedError{Name: name, Format: format, Line: n, Err: err}
	}
	return text, countLines(text), nil
}

// MaxReadText is the most text ReadFile decompresses: a file read whole is
// held whole in memory, and a few hundred bytes of zstd can decompress to
// gigabytes. Commands that stream their files (analyze sudoku solve and
// rate) read corpora of any size.
const MaxReadText = 1 << 30

// Limits bound what decompressing a file may cost.
type Limits struct {
	// Text is the most bytes of text, counted as they are decompressed;
	// 0: no limit.
	Text int64
	// Window is the largest zstd window decoded, which is about the
	// memory the decoder holds; 0: DefaultLimits.Window.
	Window uint64
}

// DefaultLimits are the limits of Open: no limit on the text, which is
// streamed, and a window of 128 MiB, that of zstd --ultra -22 and of
// --long (a larger one is only asked for with --long=28 or more).
var DefaultLimits = Limits{Window: 128 << 20}

// ErrLimit is the error of data whose text or zstd window passes a limit
// (see LimitError).
var ErrLimit = errors.New("over the limit")

// A LimitError reports a file refused because its text, or its zstd
// window, is larger than the reader allows. It is returned as soon as the
// limit is passed, without decompressing the rest.
type LimitError struct {
	Name  string // the file
	What  string // "text once decompressed" or "zstd window"
	Limit int64  // in bytes
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s larger than %s, the limit", e.Name, e.What, size(e.Limit))
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// size writes n bytes in MiB or GiB where it is a whole number of them.
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitError is the *LimitError of the decompressor's err, if it reports
// a limit passed: text over maxText, or a zstd window over window.
func limitError(name string, err error, maxText int64, window uint64) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrLimit), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return &LimitError{Name: name, What: "text once decompressed", Limit: maxText}
	case errors.Is(err, zstd.ErrWindowSizeExceeded):
		return &LimitError{Name: name, What: "zstd window", Limit: int64(window)}
	}
	return nil
}

func countLines(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// sniff returns the format that data starts with, or "" for text. The
// magic numbers are those of the formats' specifications: gzip (RFC 1952),
// zstd frames and skippable frames (RFC 8878), and the formats named only to
// be refused. None can begin a puzzle file, whose first bytes are digits,
// '.', '#', grid characters or a byte order mark ("BZh" is not a puzzle
// line or a comment).
func sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		return "gzip"
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}),
		len(data) >= 4 && data[0]&0xf0 == 0x50 && bytes.Equal(data[1:4], []byte{0x2a, 0x4d, 0x18}):
		return "zstd"
	case bytes.HasPrefix(data, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return "xz"
	case len(data) >= 4 && bytes.HasPrefix(data, []byte("BZh")) && data[3] >= '1' && data[3] <= '9':
		return "bzip2"
	case bytes.HasPrefix(data, []byte{'P', 'K', 0x03, 0x04}):
		return "zip"
	case bytes.HasPrefix(data, []byte{0x04, 0x22, 0x4d, 0x18}):
		return "lz4"
	}
	return ""
}

// gunzip decompresses every member of a gzip file. It returns the text
// decompressed before an error, if any. It uses the standard library's
// reader rather than klauspost/compress/gzip, which decodes about 10%
// faster but gives less of the text before the end of a file cut short
// (docs/benchmarks.md); decoding is a few percent of a command that
// classifies the puzzles.
func gunzip(raw []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	// The last four bytes give the text's size modulo 2^32 (of the last
	// member only, if there are several): a hint for the buffer, trusted
	// only within deflate's largest ratio, about 1032 to 1.
	size := 4 * len(raw)
	if len(raw) >= 4 {
		if n := int(binary.LittleEndian.Uint32(raw[len(raw)-4:])); n <= 1032*len(raw) {
			size = n
		}
	}
	return readAll(io.LimitReader(zr, MaxReadText+1), min(size, MaxReadText))
}

// readAll is io.ReadAll with a first buffer of size+1 bytes: a right size
// reads the whole text without growing the buffer. More than MaxReadText
// bytes is an error wrapping ErrLimit.
func readAll(r io.Reader, size int) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > MaxReadText {
			return nil, ErrLimit
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// zstdDecoder decodes whole zstd files in memory, up to MaxReadText bytes
// of text (it stops as soon as a frame passes it, and refuses a frame that
// says it is larger); DecodeAll is safe for concurrent use.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(MaxReadText), zstd.WithDecoderMaxWindow(DefaultLimits.Window))
	if err != nil {
		panic(err) // only for invalid options
	}
	return d
})

// unzstd decompresses every frame of a zstd file. It returns the text
// decompressed before an error, if any.
func unzstd(raw []byte) ([]byte, error) {
	return zstdDecoder().DecodeAll(raw, nil)
}

// Reader reads a file's text as ReadFile returns it, a piece at a time:
// a gzip or zstd file is decompressed as it is read, so that a corpus
// larger than memory can be read. If the compressed data is damaged, the
// text ends with the last complete line before the damage, and Read then
// returns a *DamagedError instead of io.EOF. Two differences from
// ReadFile: a line longer than maxHold is returned in parts as it is read
// (of damage inside it, the part before is in the text), and the text of a
// zstd frame whose checksum fails lacks the frame's last block (up to 128
// KiB), which the streaming decoder drops with the error.
type Reader struct {
	name   string
	format string
	file   io.Closer // closed by Close; nil for standard input or NewReader's
	src    io.Reader // the text, decompressed
	close  func()    // releases the decompressor
	buf    []byte    // decompressed text not yet returned
	off    int       // buf[off:ready] may be returned: whole lines, or the end
	ready  int
	lines  int   // newlines in the text up to ready
	err    error // after buf[:ready]
}

// maxHold bounds the part of a line that a Reader holds back.
const maxHold = 4 << 20

// Open opens the named file for reading its text (see Reader), within
// DefaultLimits. Errors are those of ReadFile, except that damage is
// reported by Read.
func Open(name string) (*Reader, error) {
	f, err := os.Stdin, error(nil)
	if name != Stdin {
		f, err = os.Open(name)
	}
	if err != nil {
		return nil, err
	}
	r, err := NewReader(Name(name), f, DefaultLimits)
	if err != nil {
		if name != Stdin {
			f.Close()
		}
		return nil, err
	}
	if name != Stdin {
		r.file = f
	}
	return r, nil
}

// NewReader reads the text of the data that in reads (an upload, say) as
// Open does that of a file, which messages name name. The text is counted
// as it is read: once it passes lim.Text, or a zstd frame asks for a
// window over lim.Window, Read returns a *LimitError. Close does not close
// in.
func NewReader(name string, in io.Reader, lim Limits) (*Reader, error) {
	if lim.Window == 0 {
		lim.Window = DefaultLimits.Window
	}
	r := &Reader{name: name}
	head := make([]byte, 6)
	n, err := io.ReadFull(in, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	r.format = sniff(head[:n])
	raw := io.MultiReader(bytes.NewReader(head[:n]), in)
	switch r.format {
	case "":
		r.src = raw
	case "gzip":
		zr, err := gzip.NewReader(raw)
		if err != nil {
			r.src = errReader{err}
			break
		}
		r.src = zr
	case "zstd":
		// One goroutine, and a window of at most lim.Window: the decoder
		// holds about a window of text, whatever the frame's size.
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(lim.Window), zstd.WithDecoderMaxMemory(lim.Window))
		if err != nil {
			return nil, err
		}
		r.src, r.close = &windowReader{zr, name, lim.Window}, zr.Close
	default:
		return nil, fmt.Errorf("%s: %s: %w", r.name, r.format, ErrFormat)
	}
	if lim.Text > 0 {
		r.src = &textLimit{r: r.src, name: name, limit: lim.Text, left: lim.Text}
	}
	return r, nil
}

// windowReader reports a zstd window over the limit as a *LimitError.
type windowReader struct {
	r      io.Reader
	name   string
	window uint64
}

func (w *windowReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	// The decoder reports a frame of one segment (whose window is its
	// size) over the limit as a size exceeded.
	if err != nil && err != io.EOF && (errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded)) {
		err = &LimitError{Name: w.name, What: "zstd window", Limit: int64(w.window)}
	}
	return n, err
}

// textLimit reads at most limit bytes of r, then a *LimitError.
type textLimit struct {
	r     io.Reader
	name  string
	limit int64
	left  int64
}

func (l *textLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more tells a text of exactly limit bytes from a
		// longer one.
		var b [1]byte
		if n, err := l.r.Read(b[:]); n == 0 {
			return 0, err
		}
		return 0, &LimitError{Name: l.name, What: "text once decompressed", Limit: l.limit}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Compressed tells whether the file is compressed.
func (r *Reader) Compressed() bool { return r.format != "" }

// Close closes the file that Open opened (standard input stays open).
func (r *Reader) Close() error {
	if r.close != nil {
		r.close()
		r.close = nil
	}
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if r.format == "" {
		return r.src.Read(p) // plain text: errors are the file's
	}
	for {
		if r.off < r.ready {
			n := copy(p, r.buf[r.off:r.ready])
			r.off += n
			return n, nil
		}
		if r.err != nil {
			return 0, r.err
		}
		if r.buf == nil {
			r.buf = make([]byte, 0, 256<<10)
		}
		r.buf = r.buf[:copy(r.buf[:cap(r.buf)], r.buf[r.ready:])]
		r.off, r.ready = 0, 0
		if len(r.buf) == cap(r.buf) {
			r.buf = slices.Grow(r.buf, len(r.buf))
		}
		n, err := r.src.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+n]
		switch {
		case err == io.EOF:
			r.ready, r.err = len(r.buf), io.EOF
		case errors.Is(err, ErrLimit):
			r.ready, r.err = len(r.buf), err
		case err != nil:
			r.ready = bytes.LastIndexByte(r.buf, '\n') + 1
			r.buf = r.buf[:r.ready]
			r.err = &DamagedError{Name: r.name, Format: r.format, Line: r.lines + bytes.Count(r.buf, []byte{'\n'}), Err: err}
		case len(r.buf) >= maxHold:
			r.ready = len(r.buf)
		default:
			r.ready = bytes.LastIndexByte(r.buf, '\n') + 1
		}
		r.lines += bytes.Count(r.buf[:r.ready], []byte{'\n'})
	}
}
