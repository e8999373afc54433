package sudoku

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Source is one input of a corpus job as its submit side reads it: a file
// (FileSource), a text in memory (TextSource) or data read from a reader
// (ReaderSource).
type Source struct {
	name   string
	text   []byte
	file   bool
	reader io.Reader
	limits infile.Limits
}

// FileSource is the input of the file at path, plain text or compressed
// with gzip or zstd (told apart by their first bytes), which the job
// names path. The path infile.Stdin ("-") is standard input, read as a
// pipe, which the job names "<stdin>".
func FileSource(path string) Source { return Source{name: path, file: true} }

// TextSource is an input whose text is in memory (an upload, already
// decompressed), which the job names name.
func TextSource(name string, text []byte) Source { return Source{name: name, text: text} }

// ReaderSource is the input of the data that r reads (an upload), plain
// text or compressed with gzip or zstd (told apart by their first bytes),
// which the job names name. Its text is decompressed as it is cut, never
// held whole, within lim: text or a zstd window past lim is refused with
// an error that wraps tasks.ErrInvalid and an *infile.LimitError, as soon
// as the limit is passed.
func ReaderSource(name string, r io.Reader, lim infile.Limits) Source {
	return Source{name: name, reader: r, limits: lim}
}

// corpusKinds are the kinds whose parameters are SolveParams.
var corpusKinds = map[string]bool{Solve{}.Name(): true, Rate{}.Name(): true}

// SubmitCorpus is the submit side of the corpus kinds, "sudoku.solve" and
// "sudoku.rate", which analyze and the web both call: it checks p, reads
// the text of each source once, cutting it into the pieces of its tasks as it reads
// (UploadCorpus), stores the pieces in in (or, where in.Lends, leaves
// those of a plain regular file in it, where the workers read them), and
// returns the spec of the job over the sources, with p's Inputs set to
// them. p.Chunk 0 has the kind choose the chunk by the size of the
// inputs' text (see corpusSize): the same inputs and flags always give
// the same chunks, and so the same job.
//
// Of a compressed file whose data is damaged, the job has the lines
// before the damage: the spec comes with damaged, the
// *infile.DamagedError that names the file and the line reached (joined,
// of several files), for the caller to run the job and then fail. An
// error wrapping tasks.ErrInvalid is a mistake of the caller's, which it
// names: a file that cannot be read, a chunk out of range, a line whose
// puzzles do not fit a task.
func SubmitCorpus(ctx context.Context, in tasks.Inputs, kind string, sources []Source, p SolveParams) (spec tasks.Spec, damaged, err error) {
	if !corpusKinds[kind] {
		return tasks.Spec{}, nil, tasks.Invalid("kind %q: not a corpus kind (%s, %s)", kind, Solve{}.Name(), Rate{}.Name())
	}
	if len(sources) == 0 {
		return tasks.Spec{}, nil, errNoInputs
	}
	if err := checkChunk(p.Chunk, "by the inputs' size"); err != nil {
		return tasks.Spec{}, nil, err
	}
	// The sources are opened and sized first, reading ahead what of the
	// compressed ones the chunk needs (corpusSize); the upload reads the
	// rest.
	texts := make([]*sourceText, len(sources))
	defer func() {
		for _, t := range texts {
			t.close()
		}
	}()
	var sized corpusSize
	if p.Chunk == 0 {
		sized = corpusSize{kind: kind, most: autoChunk(kind, 1<<50)}
	}
	for i, s := range sources {
		if texts[i], err = openSource(s, in.Lends(), &sized); err != nil {
			return tasks.Spec{}, nil, err
		}
	}
	if p.Chunk == 0 {
		p.Chunk = autoChunk(kind, int(sized.size))
	}
	p.Inputs = make([]Input, 0, len(sources))
	var damages []error
	var pieces atomic.Int64 // of every source: a task each
	for i, s := range sources {
		t := texts[i]
		put := Stored(in.UploadContent)
		if t.lend != "" {
			put = func(ctx context.Context, data []byte, at int64) (string, error) {
				return in.UploadFileRange(ctx, data, t.lend, at)
			}
		}
		name := infile.Name(s.name)
		put = limitPieces(put, &pieces, p.Chunk)
		up, err := UploadCorpus(ctx, name, t.reader(), p.Chunk, put)
		t.close()
		switch {
		case errors.As(err, new(*infile.LimitError)):
			return tasks.Spec{}, nil, invalidInput{err} // it names the file
		case errors.As(err, new(*infile.DamagedError)):
			damages = append(damages, err)
		case errors.Is(err, tasks.ErrInvalid):
			return tasks.Spec{}, nil, err
		case err != nil:
			return tasks.Spec{}, nil, fmt.Errorf("%s: %w", name, err)
		}
		p.Inputs = append(p.Inputs, up)
	}
	params, err := json.Marshal(p)
	if err != nil {
		return tasks.Spec{}, nil, err
	}
	return tasks.Spec{Kind: kind, Params: params}, errors.Join(damages...), nil
}

// sourceText is the text of a source: head, the text read ahead to size
// the chunks, then what rest reads.
type sourceText struct {
	head [][]byte
	rest io.Reader // nil: the text is head
	file *infile.Reader
	// lend is the absolute path of a plain regular file whose pieces are
	// left in it (tasks.Inputs.UploadFileRange), or "".
	lend string
}

// limitPieces is put refusing, once the pieces that it stored reach
// tasks.MaxTasks, the next: each is a task of the job. UploadCorpus calls
// put from several goroutines at once.
func limitPieces(put func(context.Context, []byte, int64) (string, error), pieces *atomic.Int64, chunk int) func(context.Context, []byte, int64) (string, error) {
	return func(ctx context.Context, data []byte, at int64) (string, error) {
		if pieces.Add(1) > tasks.MaxTasks {
			return "", tasks.Invalid("--chunk %d: the inputs make more than %s tasks of %d puzzles, the most a job may have",
				chunk, tasks.Thousands(tasks.MaxTasks), chunk)
		}
		return put(ctx, data, at)
	}
}

// corpusSize sizes the texts of a job's sources for autoChunk, a source at
// a time in their order, without reading more than the chunk needs: the
// size of a plain regular file is its metadata's, that of a text its
// length, and the text of a compressed file (or a pipe) is read ahead only
// while autoChunk of the size so far is below most (past it, the rest does
// not change the chunk), and kept to be cut. So a compressed file is
// decompressed once, and the text held ahead of the cut is at most what
// makes the largest chunk, and a block: 82 bytes a puzzle times autoTasks
// times MaxChunk (15.7 MB) for sudoku.solve, times maxRateChunk (525 KB)
// for sudoku.rate. The zero value reads nothing ahead (the user chose the
// chunk).
type corpusSize struct {
	kind string
	most int   // autoChunk's largest chunk; 0: read nothing ahead
	size int64 // of the texts so far
}

// readAheadBlock is how much of a compressed file's text corpusSize reads
// at a time.
const readAheadBlock = 256 << 10

// openSource opens s and adds it to sized. Where lends, the pieces of a
// plain regular file are to be left in it. The file stays open until its
// text is cut, so that every byte of it is read once (a pipe can be
// read only once).
func openSource(s Source, lends bool, sized *corpusSize) (*sourceText, error) {
	var (
		f   *infile.Reader
		err error
	)
	switch {
	case s.reader != nil:
		f, err = infile.NewReader(s.name, s.reader, s.limits)
		if errors.Is(err, infile.ErrFormat) {
			return nil, tasks.Invalid("%v", err) // it names the input
		}
		if err != nil {
			return nil, tasks.Invalid("%s: cannot read: %v", s.name, err)
		}
	case !s.file:
		sized.size += int64(len(s.text))
		return &sourceText{head: [][]byte{s.text}}, nil
	default:
		if f, err = openFile(s.name); err != nil {
			return nil, err
		}
	}
	t := &sourceText{rest: f, file: f}
	if !f.Compressed() && s.file && s.name != infile.Stdin {
		st, err := os.Stat(s.name)
		if err != nil {
			t.close()
			return nil, tasks.Invalid("%s: cannot read: %v", s.name, err)
		}
		if st.Mode().IsRegular() {
			sized.size += st.Size()
			if abs, err := filepath.Abs(s.name); lends && err == nil {
				t.lend = abs
			}
			return t, nil
		}
		// A pipe: its size is that of the text read.
	}
	for sized.most > 0 && autoChunk(sized.kind, int(sized.size)) < sized.most && t.rest == f {
		block := make([]byte, readAheadBlock)
		n, err := io.ReadFull(f, block)
		t.head = append(t.head, block[:n])
		sized.size += int64(n)
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			t.rest = nil
		case errors.As(err, new(*infile.LimitError)):
			t.close()
			return nil, invalidInput{err}
		case err != nil:
			t.rest = errReader{err} // damage: the upload reports it after the text
		}
	}
	if t.rest != f {
		t.close()
	}
	return t, nil
}

// openFile opens the file name for reading its text; an error wraps
// tasks.ErrInvalid and names the file.
func openFile(name string) (*infile.Reader, error) {
	f, err := infile.Open(name)
	if errors.Is(err, infile.ErrFormat) {
		return nil, tasks.Invalid("%v", err) // it names the file
	}
	if err != nil {
		return nil, tasks.Invalid("%s: cannot read: %v", infile.Name(name), err)
	}
	return f, nil
}

// autoChunk is the chunk of a job of kind over inputs of size bytes of
// text in all, when the user gives none.
func autoChunk(kind string, size int) int {
	if kind == (Rate{}).Name() {
		return min(AutoChunk(size), maxRateChunk)
	}
	return AutoChunk(size)
}

// reader reads the text of t: what was read ahead, then the rest.
func (t *sourceText) reader() io.Reader {
	rs := make([]io.Reader, 0, len(t.head)+1)
	for _, b := range t.head {
		rs = append(rs, bytes.NewReader(b))
	}
	if t.rest != nil {
		rs = append(rs, t.rest)
	}
	t.head = nil // each block goes once it is read
	return io.MultiReader(rs...)
}

// close closes t's file, if it is open.
func (t *sourceText) close() {
	if t != nil && t.file != nil {
		t.file.Close()
		t.file = nil
	}
}

// invalidInput is the error of an input that the kind refuses
// (tasks.ErrInvalid), which keeps its cause (an *infile.LimitError).
type invalidInput struct{ error }

func (e invalidInput) Is(target error) bool { return target == tasks.ErrInvalid }

func (e invalidInput) Unwrap() error { return e.error }

// errReader reads nothing but err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
