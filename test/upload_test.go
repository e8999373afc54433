package test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// piecesStored is the number of corpus pieces in the bucket of the NATS
// server on port (0 while there is no bucket).
func piecesStored(port int) int {
	reply, err := natsRequest(port, "$JS.API.STREAM.INFO.KV_wopr_pieces", "", 5*time.Second)
	if err != nil {
		return 0
	}
	var info struct {
		State struct{ Messages int } `json:"state"`
	}
	if json.Unmarshal([]byte(reply), &info) != nil {
		return 0
	}
	return info.State.Messages
}

// A nats-server SIGKILLed and started again while analyze uploads a
// corpus's pieces: the client retries each piece until the server is back
// (it failed with "context deadline exceeded"), the job is the whole
// corpus, and no piece is stored twice.
func TestCorpusUploadAcrossNATSRestart(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	const puzzles, pieces = 60_000, 60_000 / 5
	makeCorpus(t, "royle17.txt.gz", puzzles, corpus)
	store := filepath.Join(t.TempDir(), "js")
	url, srv := startNATSAt(t, store, "-1")
	portText := url[strings.LastIndex(url, ":")+1:]
	port, _ := strconv.Atoi(portText)
	startClusterOn(t, url)

	// --chunk 5: 12,000 pieces, each a request of its own, for time to
	// restart the server while they go.
	cmd := exec.Command(binary("analyze"), "sudoku", "solve", corpus, "--nats", url, "--chunk", "5", "--json", "-q")
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	deadline := time.Now().Add(2 * time.Minute)
	for piecesStored(port) < 100 {
		select {
		case err := <-done:
			t.Fatalf("analyze ended before the restart (%v):\n%s", err, out)
		case <-time.After(10 * time.Millisecond): // polling with a deadline
		}
		if time.Now().After(deadline) {
			t.Fatal("fewer than 100 pieces stored after 2 minutes")
		}
	}
	if n := piecesStored(port); n >= pieces {
		t.Fatalf("%d pieces stored before the restart: the upload was over", n)
	}
	var exit *exec.ExitError
	if err := srv.stop(t, syscall.SIGKILL); !errors.As(err, &exit) {
		t.Fatalf("nats-server: %v", err)
	}
	if again, _ := startNATSAt(t, store, portText); again != url {
		t.Fatalf("restarted nats-server at %s, want %s", again, url)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("analyze sudoku solve across a restart of nats-server: %v\n%s", err, out)
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("analyze still runs 3 minutes after the restart:\n%s", out)
	}
	var rep struct{ Puzzles, Unique, Malformed int }
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil || rep.Puzzles != puzzles || rep.Unique != puzzles {
		t.Errorf("report %s (%v): want %d puzzles, all unique", out, err, puzzles)
	}
	if n := piecesStored(port); n != pieces+1 {
		t.Errorf("%d pieces stored, want %d: one per task, and their list", n, pieces+1)
	}
}
