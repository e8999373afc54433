package infile_test

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"

	"github.com/woprlabs/wopr/internal/infile"
)

// dataset returns the text of a corpus in the repository's datasets,
// decompressed with the standard library's gzip reader (not the one
// ReadFile uses).
func dataset(tb testing.TB, name string) []byte {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "..", "datasets", "sudoku", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := stdgzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return text
}

// stdLines is the number of complete lines that compress/gzip reads from
// data before its end or an error.
func stdLines(data []byte) int {
	zr, err := stdgzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0
	}
	text, _ := io.ReadAll(zr)
	return bytes.Count(text, []byte{'\n'})
}

func gzipped(tb testing.TB, text []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := stdgzip.NewWriter(&b)
	if _, err := zw.Write(text); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func zstded(tb testing.TB, text []byte, opts ...zstd.EOption) []byte {
	tb.Helper()
	zw, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(text, nil)
}

func write(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

func TestFormatsAgree(t *testing.T) {
	euler := dataset(t, "euler96.txt.gz")
	half := len(euler) / 2
	// A zstd skippable frame (magic 0x184D2A5?, little-endian length, then
	// bytes to skip) before the text's frame.
	skippable := binary.LittleEndian.AppendUint32(nil, 0x184d2a53)
	skippable = binary.LittleEndian.AppendUint32(skippable, 3)
	skippable = append(skippable, "abc"...)
	noNewline := []byte("1...\n2...")
	cases := []struct {
		name  string // the names lie: the content decides
		data  []byte
		text  []byte
		lines int
	}{
		{"euler96.txt", euler, euler, 50},
		{"euler96.txt.gz.txt", gzipped(t, euler), euler, 50},
		{"euler96.gz", euler, euler, 50},
		{"euler96-is-zstd.txt", zstded(t, euler), euler, 50},
		{"euler96-is-gzip.zst", gzipped(t, euler), euler, 50},
		{"two-members.gz", append(gzipped(t, euler[:half]), gzipped(t, euler[half:])...), euler, 50},
		{"two-frames.zst", append(zstded(t, euler[:half]), zstded(t, euler[half:])...), euler, 50},
		{"skippable.zst", append(skippable, zstded(t, euler)...), euler, 50},
		{"no-checksum.zst", zstded(t, euler, zstd.WithEncoderCRC(false)), euler, 50},
		{"no-newline.txt", noNewline, noNewline, 2},
		{"no-newline.gz", gzipped(t, noNewline), noNewline, 2},
		{"no-newline.zst", zstded(t, noNewline), noNewline, 2},
		{"empty.txt", nil, nil, 0},
		{"empty.gz", gzipped(t, nil), nil, 0},
		{"empty.zst", zstded(t, nil), nil, 0},
		{"one-byte.txt", []byte{0x1f}, []byte{0x1f}, 1},
	}
	for _, c := range cases {
		path := write(t, c.name, c.data)
		text, lines, err := infile.ReadFile(path)
		if err != nil {
			t.Errorf("ReadFile(%s): %v", c.name, err)
			continue
		}
		if !bytes.Equal(text, c.text) || lines != c.lines {
			t.Errorf("ReadFile(%s) = %d bytes, %d lines; want %d bytes, %d lines, equal to the text", c.name, len(text), lines, len(c.text), c.lines)
		}
		if streamed, err := readStreamed(path); err != nil || !bytes.Equal(streamed, c.text) {
			t.Errorf("Open(%s) read %d bytes, %v; want the %d of ReadFile", c.name, len(streamed), err, len(c.text))
		}
	}
}

// readStreamed reads a file through Open, a few bytes at a time.
func readStreamed(path string) ([]byte, error) {
	r, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(iotest.HalfReader(r))
}

func TestOtherFormatsRefused(t *testing.T) {
	for name, head := range map[string][]byte{
		"xz":    {0xfd, '7', 'z', 'X', 'Z', 0x00, 0, 4},
		"bzip2": []byte("BZh91AY&SY"),
		"zip":   {'P', 'K', 3, 4, 20, 0},
		"lz4":   {0x04, 0x22, 0x4d, 0x18, 0x64},
	} {
		path := write(t, "puzzles.txt", head)
		_, _, err := infile.ReadFile(path)
		if want := path + ": " + name + ": "; !errors.Is(err, infile.ErrFormat) || !strings.HasPrefix(fmt.Sprint(err), want) {
			t.Errorf("ReadFile of %s data: %v, want an error starting %q that is ErrFormat", name, err, want)
		}
	}
	if _, _, err := infile.ReadFile(filepath.Join(t.TempDir(), "missing.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestDamaged reads damaged gzip and zstd files: each gives the text up to
// a complete line, its number of lines, and a *DamagedError naming the file
// and that line.
func TestDamaged(t *testing.T) {
	text := dataset(t, "royle17.txt.gz")
	const total = 49158
	gz, zs := gzipped(t, text), zstded(t, text)

	// The gzip trailer is the CRC-32 of the text then its size; a zstd
	// frame with a checksum ends with the low 4 bytes of its XXH64.
	badCRC := bytes.Clone(gz)
	badCRC[len(badCRC)-8] ^= 1
	badSum := bytes.Clone(zs)
	badSum[len(badSum)-1] ^= 1
	// Bytes in the middle of the compressed data changed.
	corrupt := func(b []byte) []byte {
		b = bytes.Clone(b)
		for i := len(b) / 2; i < len(b)/2+64; i++ {
			b[i] = ^b[i]
		}
		return b
	}
	cases := []struct {
		name, format string
		data         []byte
		whole        bool // the damage is after the last line
		cause        error
		garbled      bool // gzip's deflate blocks carry no checksum: bytes changed inside them may decode to other text
	}{
		{"truncated.txt.gz", "gzip", gz[:len(gz)/2], false, io.ErrUnexpectedEOF, false},
		{"truncated-trailer.txt.gz", "gzip", gz[:len(gz)-3], true, io.ErrUnexpectedEOF, false},
		{"checksum.txt.gz", "gzip", badCRC, true, stdgzip.ErrChecksum, false},
		{"corrupt.txt.gz", "gzip", corrupt(gz), false, nil, true},
		{"truncated.txt.zst", "zstd", zs[:len(zs)/2], false, io.ErrUnexpectedEOF, false},
		{"checksum.txt.zst", "zstd", badSum, true, zstd.ErrCRCMismatch, false},
		{"corrupt.txt.zst", "zstd", corrupt(zs), false, nil, false},
	}
	for _, c := range cases {
		path := write(t, c.name, c.data)
		got, lines, err := infile.ReadFile(path)
		var d *infile.DamagedError
		if !errors.As(err, &d) {
			t.Errorf("ReadFile(%s): error %v, want a *DamagedError", c.name, err)
			continue
		}
		t.Logf("%s: %d lines, %v", c.name, lines, err)
		if len(got) > 0 && got[len(got)-1] != '\n' || !c.garbled && !bytes.HasPrefix(text, got) {
			t.Errorf("ReadFile(%s): %d bytes that are not complete lines of the text", c.name, len(got))
		}
		if n := bytes.Count(got, []byte{'\n'}); lines != n || d.Line != n {
			t.Errorf("ReadFile(%s): %d lines, error at line %d; want both %d, the lines returned", c.name, lines, d.Line, n)
		}
		// Streamed, the same text, then the same error; but a zstd
		// decoder that reads a frame a block at a time drops the last
		// block of a frame whose checksum fails.
		streamed, serr := readStreamed(path)
		var sd *infile.DamagedError
		same := bytes.Equal(streamed, got)
		if c.name == "checksum.txt.zst" {
			same = bytes.HasPrefix(got, streamed) && len(got)-len(streamed) <= 128<<10
		}
		if !errors.As(serr, &sd) || sd.Line != bytes.Count(streamed, []byte{'\n'}) || !same {
			t.Errorf("Open(%s) read %d bytes, then %v; want the %d bytes of ReadFile, then %v", c.name, len(streamed), serr, len(got), err)
		}
		if c.format == "gzip" && !c.garbled {
			// The standard library's reader, on the same bytes, as the
			// reference for the lines before the damage.
			if want := stdLines(c.data); lines != want {
				t.Errorf("ReadFile(%s): %d lines, compress/gzip reads %d complete lines before the damage", c.name, lines, want)
			}
		}
		if c.whole && lines != total || !c.whole && !c.garbled && (lines == 0 || lines >= total) {
			t.Errorf("ReadFile(%s): %d lines before the damage, want %s", c.name, lines, map[bool]string{true: "all 49158", false: "some but not all"}[c.whole])
		}
		if d.Name != path || d.Format != c.format {
			t.Errorf("ReadFile(%s): error names %s, %s; want %s, %s", c.name, d.Name, d.Format, path, c.format)
		}
		if c.cause != nil && !errors.Is(err, c.cause) {
			t.Errorf("ReadFile(%s): error %v, want it to wrap %v", c.name, err, c.cause)
		}
		if want := fmt.Sprintf("%s: %s data damaged after line %d: ", path, c.format, lines); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ReadFile(%s): error %q, want it to start %q", c.name, err, want)
		}
	}

	path := write(t, "header.gz", gz[:5])
	if _, lines, err := infile.ReadFile(path); err == nil || lines != 0 || !strings.HasPrefix(err.Error(), path+": gzip data damaged before line 1: ") {
		t.Errorf("ReadFile of a gzip header cut short: %d lines, error %v; want 0 and %q", lines, err, path+": gzip data damaged before line 1: ...")
	}
}

// "-" is standard input, plain or compressed, and "<stdin>" in messages;
// Close leaves standard input open.
func TestStdin(t *testing.T) {
	text := dataset(t, "euler96.txt.gz")
	var gz bytes.Buffer
	zw := stdgzip.NewWriter(&gz)
	zw.Write(text[:len(text)/2])
	zw.Flush() // the stream breaks off after a flushed block: damaged
	for _, c := range []struct {
		name, damage string
		data         []byte
	}{{"plain", "", text}, {"gzip", "<stdin>: gzip data damaged after line", gz.Bytes()}} {
		t.Run(c.name, func(t *testing.T) {
			for _, open := range []string{"Open", "ReadFile"} {
				stdin := os.Stdin
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				go func() { w.Write(c.data); w.Close() }()
				os.Stdin = r
				var got []byte
				if open == "Open" {
					f, oerr := infile.Open(infile.Stdin)
					if oerr != nil {
						t.Fatal(oerr)
					}
					got, err = io.ReadAll(f)
					f.Close()
					if _, serr := r.Stat(); serr != nil {
						t.Errorf("Close closed standard input: %v", serr)
					}
				} else {
					got, _, err = infile.ReadFile(infile.Stdin)
				}
				os.Stdin = stdin
				r.Close()
				if c.damage == "" && (err != nil || !bytes.Equal(got, text)) {
					t.Errorf("%s: %d bytes, %v; want the %d of the text", open, len(got), err, len(text))
				}
				if c.damage != "" && (err == nil || !strings.HasPrefix(err.Error(), c.damage) || !bytes.HasPrefix(text, got) || len(got) == 0) {
					t.Errorf("%s: %d bytes, %v; want a prefix of the text and %q", open, len(got), err, c.damage)
				}
			}
		})
	}
	if infile.Name(infile.Stdin) != "<stdin>" || infile.Name("a.txt") != "a.txt" {
		t.Errorf("Name: %q, %q", infile.Name(infile.Stdin), infile.Name("a.txt"))
	}
}

// A file whose text passes a limit is refused with a *LimitError that
// names the file and the limit, as soon as the limit is passed: a zstd
// bomb of 1 GiB of text with a limit of 1 MiB, a gzip one, and a zstd frame
// that says it holds 2 GiB, which ReadFile refuses before decoding it.
func TestLimits(t *testing.T) {
	text := bytes.Repeat([]byte(strings.Repeat(".", 81)+"\n"), 1<<20/82*8) // 8 MiB
	bombs := map[string][]byte{
		"bomb.zst": bytes.Repeat(zstded(t, text), 128),
		"bomb.gz":  bytes.Repeat(gzipped(t, text), 128),
	}
	for name, data := range bombs {
		r, err := infile.NewReader(name, bytes.NewReader(data), infile.Limits{Text: 1 << 20})
		if err != nil {
			t.Fatalf("NewReader %s: %v", name, err)
		}
		n, err := io.Copy(io.Discard, r)
		var lim *infile.LimitError
		if !errors.As(err, &lim) || !errors.Is(err, infile.ErrLimit) || err.Error() != name+": text once decompressed larger than 1 MiB, the limit" {
			t.Errorf("read %s within 1 MiB: %d bytes, %v; want a *LimitError naming the file and 1 MiB", name, n, err)
		}
		if n > 1<<20 {
			t.Errorf("read %s within 1 MiB: %d bytes read, want at most 1 MiB", name, n)
		}
		r.Close()
	}

	// Magic, a header with an 8-byte content size and a single segment,
	// 2 GiB, and one raw block, empty and last.
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0x80, 0, 0, 0, 0, 1, 0, 0}
	path := write(t, "huge.zst", frame)
	_, _, err := infile.ReadFile(path)
	if want := path + ": text once decompressed larger than 1 GiB, the limit"; err == nil || err.Error() != want {
		t.Errorf("ReadFile of a frame of 2 GiB: %v, want %q", err, want)
	}
}
