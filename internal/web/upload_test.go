package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/job"
)

// zstdBomb is a zstd file of a few kilobytes whose text is size bytes of
// one puzzle line repeated: one frame of 16 MiB of text, repeated.
func zstdBomb(t testing.TB, size int64) []byte {
	t.Helper()
	line := "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"
	text := bytes.Repeat([]byte(line), 16<<20/len(line))
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithWindowSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(text, nil)
	enc.Close()
	return bytes.Repeat(frame, int(size/int64(len(text)))+1)
}

// Eight zstd bombs at once (three under -race), each of 1 GiB of text
// (decompressed whole, the server held 4 GB), are each refused with 413
// once their text passes maxCorpusText, while the server's heap stays
// within a bound that does not depend on what the bombs hold; a plain
// upload is taken afterwards.
func TestUploadBombs(t *testing.T) {
	// A lower limit refuses the bombs sooner; what they hold is 32 times
	// more.
	defer func(n int64, d time.Duration) { maxCorpusText, uploadWait = n, d }(maxCorpusText, uploadWait)
	maxCorpusText, uploadWait = 32<<20, 5*time.Minute
	s := newJobsServer(t, 1)
	bomb := zstdBomb(t, 1<<30)
	t.Logf("bomb: %d bytes of zstd, 1 GiB of text", len(bomb))

	// The heap the uploads hold is the live heap that the collector
	// finds, sampled: HeapInuse counts garbage too, of which the embedded
	// NATS server makes hundreds of megabytes, until it is collected. A
	// low GOGC collects often.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	base := live[0].Value.Uint64()
	var (
		peak uint64
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	// Under the race detector, one more bomb than there are upload slots:
	// the same contention, in a fraction of the time.
	n := 8
	if race.Enabled {
		n = maxUploads + 1
	}
	codes := make([]*httptest.ResponseRecorder, n)
	var bombs sync.WaitGroup
	for i := range codes {
		bombs.Go(func() { codes[i] = upload(t, s, "bomb.txt.zst", bomb, "") })
	}
	bombs.Wait()
	close(stop)
	wg.Wait()

	for i, w := range codes {
		if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(apiErrorOf(t, w), "bomb.txt.zst: text once decompressed larger than 32 MiB, the limit") {
			t.Errorf("bomb %d: %d %s, want 413 naming the limit of 32 MiB", i, w.Code, w.Body)
		}
	}
	// Decompressed whole, the eight bombs would hold 256 MiB; streamed,
	// two at a time, each holds the text read ahead to choose the chunk
	// (16 MB), a zstd window and a few pieces.
	const bound = maxUploads * 40 << 20
	if grew := int64(peak) - int64(base); grew > bound {
		t.Errorf("live heap grew by %d MiB (%d to %d MiB) with %d bombs at once; want at most %d MiB",
			grew>>20, base>>20, peak>>20, n, bound>>20)
	} else {
		t.Logf("live heap: %d MiB, at most %d MiB with %d bombs at once", base>>20, peak>>20, n)
	}

	w := upload(t, s, "p.txt", []byte("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"), "")
	var j job.Summary
	if w.Code != http.StatusAccepted || json.Unmarshal(w.Body.Bytes(), &j) != nil {
		t.Fatalf("a plain upload after the bombs: %d %s, want 202", w.Code, w.Body)
	}
	if d := waitJob(t, s, j.ID); d.State != "done" {
		t.Errorf("job %s of a plain upload: %s, want done", j.ID, d.State)
	}
}

// An upload that finds every slot taken waits uploadWait, then is told to
// come back (503 with Retry-After); a zstd frame whose window is larger
// than uploadWindow is refused before it is decoded.
func TestUploadRefusals(t *testing.T) {
	s := newJobsServer(t, 1)
	t.Run("busy", func(t *testing.T) {
		defer func(d time.Duration) { uploadWait = d }(uploadWait)
		uploadWait = 50 * time.Millisecond
		for range maxUploads {
			s.uploads <- struct{}{}
		}
		w := upload(t, s, "p.txt", []byte(strings.Repeat(".", 81)+"\n"), "")
		for range maxUploads {
			<-s.uploads
		}
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Errorf("upload with every slot taken: %d %s, Retry-After %q; want 503 with Retry-After", w.Code, w.Body, w.Header().Get("Retry-After"))
		}
	})
	t.Run("window", func(t *testing.T) {
		// A frame (RFC 8878) whose header asks for a window of 16 MiB
		// (window descriptor: exponent 14, 2^(10+14) bytes), of one raw
		// block.
		line := strings.Repeat(".", 81) + "\n"
		frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 14 << 3}
		frame = append(frame, byte(len(line)<<3|1), byte(len(line)>>5), byte(len(line)>>13))
		b := bytes.NewBufferString(string(frame) + line)
		w := upload(t, s, "wide.txt.zst", b.Bytes(), "")
		if want := "wide.txt.zst: zstd window larger than 8 MiB, the limit"; w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), want) {
			t.Errorf("upload of a 16 MiB window: %d %s, want 413 %q", w.Code, w.Body, want)
		}
	})
}
