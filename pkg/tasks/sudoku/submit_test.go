package sudoku

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// memInputs is tasks.Inputs in memory: it names data by its content, as
// the broker does, and, where it lends, checks that what it is told is in
// a file is there.
type memInputs struct {
	t     *testing.T
	lends bool

	mu     sync.Mutex
	objs   memObjects
	placed int // pieces left in their files
}

func newMemInputs(t *testing.T, lends bool) *memInputs {
	return &memInputs{t: t, lends: lends, objs: memObjects{}}
}

func (m *memInputs) UploadContent(_ context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	name := "piece/" + hex.EncodeToString(sum[:])
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objs[name] = bytes.Clone(data)
	return name, nil
}

func (m *memInputs) UploadFileRange(ctx context.Context, data []byte, path string, at int64) (string, error) {
	if !m.lends || at < 0 {
		return m.UploadContent(ctx, data)
	}
	if !filepath.IsAbs(path) {
		m.t.Errorf("a piece lent from %s: want an absolute path", path)
	}
	there := make([]byte, len(data))
	f, err := os.Open(path)
	if err == nil {
		_, err = f.ReadAt(there, at)
		f.Close()
	}
	if err != nil || !bytes.Equal(there, data) {
		m.t.Errorf("a piece of %d bytes lent from %s at %d is not the file's bytes there (%v)", len(data), path, at, err)
	}
	m.mu.Lock()
	m.placed++
	m.mu.Unlock()
	return m.UploadContent(ctx, data)
}

func (m *memInputs) Lends() bool { return m.lends }

// submitted decodes a spec's parameters.
func submitted(t *testing.T, spec tasks.Spec) SolveParams {
	t.Helper()
	var p SolveParams
	if err := json.Unmarshal(spec.Params, &p); err != nil {
		t.Fatalf("spec %s: %v", spec.Params, err)
	}
	return p
}

// sameInputs tells whether two corpus jobs are the same but for the
// names of their files.
func sameInputs(a, b SolveParams) bool {
	if len(a.Inputs) != len(b.Inputs) {
		return false
	}
	for i := range a.Inputs {
		a.Inputs[i].File, b.Inputs[i].File = "", ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func gzipped(t testing.TB, text []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zw.Write(text)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t testing.TB, text []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(text, nil)
}

// formats are the ways a text is given to SubmitCorpus as a file.
var formats = []struct {
	name string
	of   func(testing.TB, []byte) []byte
}{
	{"plain", func(_ testing.TB, text []byte) []byte { return text }},
	{"gzip", gzipped},
	{"zstd", zstded},
}

// writeFile writes data to name in dir and returns its path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A text given as a file, plain or compressed, lent or stored, makes the
// job that the same text given in memory makes (what analyze and the web
// submit): the same pieces, chunks and parameters. Only the pieces of a
// plain file are left in it, and only where the store lends.
func TestSubmitCorpusFileOrText(t *testing.T) {
	texts := corpusTexts(t)
	dir := t.TempDir()
	for _, name := range []string{"mixed", "top1465.txt.gz", "comments"} {
		text := texts[name]
		for _, kind := range []string{Solve{}.Name(), Rate{}.Name()} {
			for _, chunk := range []int{0, 7} {
				p := SolveParams{Chunk: chunk, Out: true}
				want, damaged, err := SubmitCorpus(context.Background(), newMemInputs(t, false), kind, []Source{TextSource("c.txt", text)}, p)
				if err != nil || damaged != nil {
					t.Fatalf("%s, %s, chunk %d, from memory: %v, %v", name, kind, chunk, damaged, err)
				}
				if wp := submitted(t, want); chunk == 0 && wp.Chunk != autoChunk(kind, len(text)) || wp.Inputs[0].File != "c.txt" || want.Kind != kind {
					t.Errorf("%s, %s, chunk %d, from memory: spec %s %s, want chunk %d and file c.txt", name, kind, chunk, want.Kind, want.Params, autoChunk(kind, len(text)))
				}
				for _, f := range formats {
					path := filepath.Join(dir, name+"."+f.name)
					if _, err := os.Stat(path); err != nil {
						writeFile(t, dir, name+"."+f.name, f.of(t, text))
					}
					for _, lends := range []bool{false, true} {
						in := newMemInputs(t, lends)
						got, damaged, err := SubmitCorpus(context.Background(), in, kind, []Source{FileSource(path)}, p)
						if err != nil || damaged != nil {
							t.Fatalf("%s, %s, chunk %d, %s file, lending %v: %v, %v", name, kind, chunk, f.name, lends, damaged, err)
						}
						gp := submitted(t, got)
						if got.Kind != kind || gp.Inputs[0].File != path || !sameInputs(gp, submitted(t, want)) {
							t.Errorf("%s, %s, chunk %d, %s file, lending %v: params %s, want %s but for the file's name", name, kind, chunk, f.name, lends, got.Params, want.Params)
						}
						// The pieces of top1465 are its lines as they are.
						if mayLend := lends && f.name == "plain"; !mayLend && in.placed > 0 || mayLend && name == "top1465.txt.gz" && in.placed == 0 {
							t.Errorf("%s, %s file, lending %v: %d pieces left in the file", name, f.name, lends, in.placed)
						}
					}
				}
			}
		}
	}
}

// chunkAsBefore is the chunk that analyze chose for files before the
// sizing moved into SubmitCorpus: the sizes of plain files, and the text
// of compressed ones, decompressed in turn until the chunk no longer
// grows with it. SubmitCorpus must keep choosing it: a job is known by
// its chunks (an interrupted one is resumed by its spec, and results are
// cached by their pieces).
func chunkAsBefore(t *testing.T, kind string, files []string) int {
	t.Helper()
	most := autoChunk(kind, 1<<50)
	total := 0
	for _, f := range files {
		r, err := infile.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Compressed() {
			st, err := os.Stat(f)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			total += int(st.Size())
			continue
		}
		buf := make([]byte, 256<<10)
		for autoChunk(kind, total) < most {
			n, err := r.Read(buf)
			total += n
			if err != nil {
				break
			}
		}
		r.Close()
	}
	return autoChunk(kind, total)
}

// SubmitCorpus sizes the chunks of files as analyze did, reading each
// compressed file once, whatever the mix of plain and compressed files,
// their order and their damage. Past the size of the largest chunk
// (15.7 MB of text for sudoku.solve) it reads no further ahead.
func TestSubmitCorpusChunksAsBefore(t *testing.T) {
	dir := t.TempDir()
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n"
	small := corpusTexts(t)["top1465.txt.gz"]  // 120 KB: a sudoku.solve chunk of 100
	mid := []byte(strings.Repeat(pz, 60_000))  // 4.9 MB: 937; past sudoku.rate's largest
	big := []byte(strings.Repeat(pz, 200_000)) // 16.4 MB: past sudoku.solve's largest
	midGzData := gzipped(t, mid)
	file := func(name string, data []byte) string { return writeFile(t, dir, name, data) }
	smallTxt, smallGz := file("small.txt", small), file("small.gz", gzipped(t, small))
	midTxt, midGz, midZst := file("mid.txt", mid), file("mid.gz", midGzData), file("mid.zst", zstded(t, mid))
	// Cut short: the job has its first lines.
	bigGz, damaged := file("big.gz", gzipped(t, big)), file("damaged.gz", midGzData[:len(midGzData)/2])
	for _, files := range [][]string{
		{smallTxt}, {smallGz}, {midGz}, {midZst}, {bigGz},
		{smallGz, midTxt}, {midTxt, smallGz}, {smallGz, smallGz, midZst}, {bigGz, smallGz}, {midTxt, midTxt, midTxt, bigGz},
		{damaged}, {smallGz, damaged, smallTxt},
	} {
		for _, kind := range []string{Solve{}.Name(), Rate{}.Name()} {
			var sources []Source
			for _, f := range files {
				sources = append(sources, FileSource(f))
			}
			spec, dmg, err := SubmitCorpus(context.Background(), newMemInputs(t, true), kind, sources, SolveParams{})
			if err != nil {
				t.Fatalf("%s of %v: %v", kind, files, err)
			}
			if got, want := submitted(t, spec).Chunk, chunkAsBefore(t, kind, files); got != want {
				t.Errorf("%s of %v: chunk %d, want %d as before", kind, files, got, want)
			}
			var de *infile.DamagedError
			if hasDamaged := strings.Contains(strings.Join(files, " "), damaged); hasDamaged != errors.As(dmg, &de) || hasDamaged && de.Name != damaged {
				t.Errorf("%s of %v: damage %v", kind, files, dmg)
			}
		}
	}
	// The text held ahead of the cut is bounded by what makes the largest
	// chunk, whatever the size of the file.
	for _, kind := range []string{Solve{}.Name(), Rate{}.Name()} {
		sized := corpusSize{kind: kind, most: autoChunk(kind, 1<<50)}
		text, err := openSource(FileSource(bigGz), false, &sized)
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		for _, b := range text.head {
			held += len(b)
		}
		if bound := 82 * autoTasks * autoChunk(kind, 1<<50); held > bound+readAheadBlock || text.rest == nil {
			t.Errorf("%s: %d bytes of %d read ahead, want at most %d and the rest left to read", kind, held, len(big), bound+readAheadBlock)
		}
		text.close()
	}
}

// fifo makes a named pipe in dir that a goroutine writes data to once, as
// a shell's process substitution does (<(zcat corpus.gz)).
func fifo(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data) // EPIPE if the reader went away: the test says why
		f.Close()
	}()
	t.Cleanup(func() {
		// Let a writer that no reader opened go.
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
	})
	return path
}

// SubmitCorpus reads every byte of a file once: a pipe, which can be read
// only once, gives the job its text gives, plain or compressed, whether
// the chunk is chosen by the size (read ahead) or given.
func TestSubmitCorpusReadsAFileOnce(t *testing.T) {
	dir := t.TempDir()
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n"
	for name, text := range map[string][]byte{"small": corpusTexts(t)["top1465.txt.gz"], "big": []byte(strings.Repeat(pz, 200_000))} {
		for _, f := range formats {
			for _, chunk := range []int{0, 500} {
				p := SolveParams{Chunk: chunk}
				want, _, err := SubmitCorpus(context.Background(), newMemInputs(t, false), Solve{}.Name(), []Source{TextSource(name, text)}, p)
				if err != nil {
					t.Fatal(err)
				}
				path := fifo(t, dir, name+"-"+f.name+"-"+strconv.Itoa(chunk), f.of(t, text))
				type result struct {
					spec tasks.Spec
					err  error
				}
				done := make(chan result, 1)
				go func() {
					spec, damaged, err := SubmitCorpus(context.Background(), newMemInputs(t, true), Solve{}.Name(), []Source{FileSource(path)}, p)
					done <- result{spec, errors.Join(damaged, err)}
				}()
				select {
				case r := <-done:
					if r.err != nil || !sameInputs(submitted(t, r.spec), submitted(t, want)) {
						t.Errorf("%s text through a pipe, %s, chunk %d: %s, %v; want %s", name, f.name, chunk, r.spec.Params, r.err, want.Params)
					}
				case <-time.After(time.Minute):
					t.Fatalf("%s text through a pipe, %s, chunk %d: no spec after a minute: the pipe was opened twice", name, f.name, chunk)
				}
			}
		}
	}
}

// The caller's mistakes wrap tasks.ErrInvalid and name what is wrong,
// before any input is read where they are in the parameters.
func TestSubmitCorpusErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.txt")
	xz := writeFile(t, dir, "c.xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0x00, 1, 2})
	grid := writeFile(t, dir, "g.txt", []byte(strings.Repeat(".", 81)+"\n123456789\n"+strings.Repeat("# c\n", 500_000)))
	for _, c := range []struct {
		kind    string
		sources []Source
		chunk   int
		want    string
	}{
		{"mnk.count", []Source{TextSource("c.txt", nil)}, 0, `kind "mnk.count": not a corpus kind`},
		{"sudoku.solve", nil, 0, "no input files"},
		{"sudoku.solve", []Source{FileSource(missing)}, -1, "chunk -1: want 1 to 3000 puzzles per task (0: by the inputs' size)"},
		{"sudoku.rate", []Source{FileSource(missing)}, 3001, "chunk 3001: want 1 to 3000"},
		{"sudoku.solve", []Source{TextSource("c.txt", nil), FileSource(missing)}, 0, missing + ": cannot read: "},
		{"sudoku.solve", []Source{FileSource(xz)}, 0, xz + ": xz: compressed in a format wopr does not read"},
		{"sudoku.solve", []Source{FileSource(grid)}, 0, grid + ":1: the 2 puzzles from this line"},
	} {
		in := newMemInputs(t, true)
		_, _, err := SubmitCorpus(context.Background(), in, c.kind, c.sources, SolveParams{Chunk: c.chunk})
		if !errors.Is(err, tasks.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s of %d sources, chunk %d: error %v; want tasks.ErrInvalid, %q", c.kind, len(c.sources), c.chunk, err, c.want)
		}
		if len(in.objs) > 0 && !strings.HasPrefix(c.want, grid) {
			t.Errorf("%s, chunk %d: %d objects stored before the error", c.kind, c.chunk, len(in.objs))
		}
	}
}
