package broker

import (
	"bytes"
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// runServer starts a JetStream server for one test, on 127.0.0.1 with a
// random port and its store in a temporary directory, and opens a Broker
// on it.
func runServer(t testing.TB) *Broker {
	t.Helper()
	return openOn(t, startServer(t, nil).ClientURL())
}

// startServer starts a JetStream server on 127.0.0.1 with a store of its
// own, shut down when the test ends; configure, if set, changes its
// options first.
func startServer(t testing.TB, configure func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	if configure != nil {
		configure(opts)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// openOn opens a Broker on the server at url, closed when the test ends.
func openOn(t testing.TB, url string) *Broker {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := Open(ctx, Endpoint{URL: url, Name: t.Name()}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// Concurrent compare-and-set updates of one job record lose nothing.
func TestUpdateJobCompareAndSet(t *testing.T) {
	b := runServer(t)
	ctx := context.Background()
	j, err := b.Jobs().Submit(ctx, tasks.Spec{Kind: "x", Params: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if _, err := b.Jobs().Update(ctx, j.ID, func(r *job.Record) error { r.Done++; return nil }); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, _, err := b.Jobs().Get(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Done != 80 {
		t.Errorf("done %d after 80 concurrent increments, want 80", got.Done)
	}
}

func TestUnknownJob(t *testing.T) {
	b := runServer(t)
	for _, id := range []string{"nope", "bad.id", ""} {
		if _, _, err := b.Jobs().Get(context.Background(), id); !errors.Is(err, job.ErrNotFound) {
			t.Errorf("Jobs.Get(%q): %v, want job.ErrNotFound", id, err)
		}
	}
}

// Publishing a task twice in one epoch stores it once (dedup by message id);
// a new epoch is a new message.
func TestTaskDedupByEpoch(t *testing.T) {
	b := runServer(t)
	ctx := context.Background()
	for _, epoch := range []int{1, 1, 2} {
		if err := b.Work().PublishTask(ctx, job.Task{Job: "j1", ID: "t1", Kind: "k", Epoch: epoch, Check: job.PayloadCheck(nil)}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := b.Work().QueuedTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d messages, want 2 (epoch 1 once, epoch 2)", n)
	}
	if has, err := b.Work().HasTask(ctx, "j1", "t1"); err != nil || !has {
		t.Errorf("HasTask: %v %v, want true", has, err)
	}
	if err := b.Work().PurgeJob(ctx, "j1"); err != nil {
		t.Fatal(err)
	}
	if has, _ := b.Work().HasTask(ctx, "j1", "t1"); has {
		t.Error("task still queued after PurgeJob")
	}
}

// Content is stored under its name, as a piece when it fits a message,
// as an object otherwise, and read back the same; deleted, or the pieces
// purged, it is gone, and stored again, it is back. An output written a
// part at a time reads back whole. (An output handed over to a client's
// file instead: pkg/embedded's TestHandoff.)
func TestObjectsContentAndOutputs(t *testing.T) {
	ctx := context.Background()
	b := runServer(t)
	small := []byte("puzzle lines\n")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: more than a message
	for _, data := range [][]byte{small, big} {
		name, err := b.Objects().UploadContent(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := b.Objects().UploadContent(ctx, data); err != nil || again != name {
			t.Fatalf("stored again: %s, %v; want %s", again, err, name)
		}
		if isPiece := strings.HasPrefix(name, piecePrefix); isPiece != (len(data) < 1<<20) {
			t.Errorf("%d bytes stored as %s", len(data), name)
		}
		if got, err := b.Objects().Get(ctx, name); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("get %s: %d bytes, %v; want %d", name, len(got), err, len(data))
		}
		// Deleted (twice: the second finds nothing), then stored again.
		for range 2 {
			if err := b.Objects().DeleteContent(ctx, name); err != nil {
				t.Fatalf("delete %s: %v", name, err)
			}
		}
		if _, err := b.Objects().Get(ctx, name); err == nil {
			t.Errorf("%s read after it was deleted", name)
		}
		if again, err := b.Objects().UploadContent(ctx, data); err != nil || again != name {
			t.Fatalf("stored after it was deleted: %s, %v; want %s", again, err, name)
		}
		if got, err := b.Objects().Get(ctx, name); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("get %s stored again: %d bytes, %v; want %d", name, len(got), err, len(data))
		}
	}
	// Purged, every piece is gone, and stored again, it is back.
	pieces := []string{}
	for _, text := range []string{"a\n", "b\n"} {
		name, err := b.Objects().UploadContent(ctx, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		pieces = append(pieces, name)
	}
	if err := b.Objects().PurgePieces(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range pieces {
		if _, err := b.Objects().Get(ctx, name); err == nil {
			t.Errorf("%s read after the pieces were purged", name)
		}
	}
	if again, err := b.Objects().UploadContent(ctx, []byte("a\n")); err != nil || again != pieces[0] {
		t.Fatalf("stored after the purge: %s, %v; want %s", again, err, pieces[0])
	}
	if got, err := b.Objects().Get(ctx, pieces[0]); err != nil || string(got) != "a\n" {
		t.Errorf("get %s stored again after the purge: %q, %v", pieces[0], got, err)
	}
	if _, err := b.Objects().Get(ctx, piecePrefix+"none"); err == nil {
		t.Error("a missing piece read without error")
	}
	if _, err := b.Objects().Get(ctx, "input/none"); err == nil {
		t.Error("a missing object read without error")
	}

	out := bytes.Repeat([]byte("solution line\n"), 1<<20) // 14 MiB: two parts
	obj := tasks.OutputObject("j1", "out")
	w, err := b.Objects().Create(ctx, obj)
	if err != nil {
		t.Fatal(err)
	}
	for rest := out; len(rest) > 0; rest = rest[min(len(rest), 100_000):] {
		if _, err := w.Write(rest[:min(len(rest), 100_000)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	parts := w.(interface{ Parts() int }).Parts()
	var buf bytes.Buffer
	if err := b.Objects().DownloadTo(ctx, obj, parts, &buf); err != nil || parts != 2 || !bytes.Equal(buf.Bytes(), out) {
		t.Fatalf("download of %d parts: %d bytes, %v; want 2 parts, %d bytes", parts, buf.Len(), err, len(out))
	}

}

// Task and result messages carry every field through their headers; a
// payload's check changes with any change of the payload.
func TestMessagesRoundTrip(t *testing.T) {
	task := job.Task{Job: "j1", ID: "t7", Kind: "test.sum", Epoch: 3, Try: 2, Token: "tok", NotBy: []string{"w1", "w2"},
		Check: job.PayloadCheck([]byte("abc")), Payload: []byte("abc")}
	m := encodeTask(task)
	if got, err := decodeTask(m.Header, m.Data); err != nil || !reflect.DeepEqual(got, task) || m.Subject != "wopr.tasks.j1.t7" {
		t.Errorf("task round trip: %+v, %v (subject %s); want %+v", got, err, m.Subject, task)
	}
	res := job.Result{Job: "j1", Task: "t7", Check: task.Check, Worker: "w", Epoch: 3, Try: 2, Token: "tok", Data: []byte("49"), CacheHits: 2, Seconds: 0.5}
	m = encodeResult(res)
	if got, err := decodeResult(m.Subject, m.Header, m.Data); err != nil || !reflect.DeepEqual(got, res) || m.Subject != "wopr.results.j1.w" {
		t.Errorf("result round trip: %+v, %v (subject %s); want %+v", got, err, m.Subject, res)
	}
	// The worker is the one the subject names, whatever the headers say.
	if got, err := decodeResult("wopr.results.j1.w2", m.Header, m.Data); err != nil || got.Worker != "w2" {
		t.Errorf("result on w2's subject: worker %q, %v; want w2", got.Worker, err)
	}
	if got, err := decodeResult("wopr.results.j1", m.Header, m.Data); err != nil || got.Worker != "" {
		t.Errorf("result on a subject without a worker: worker %q, %v; want none", got.Worker, err)
	}
	// A result must say which task it was computed for; a failure may not
	// know (its task's message could not be read).
	noCheck := res
	noCheck.Check = ""
	if _, err := decodeResult(m.Subject, encodeResult(noCheck).Header, res.Data); !errors.Is(err, ErrMalformed) {
		t.Errorf("a result without its task's check decoded: %v", err)
	}
	noCheck.Failed, noCheck.Data = "unreadable task", nil
	if _, err := decodeResult(m.Subject, encodeResult(noCheck).Header, nil); err != nil {
		t.Errorf("a failure without a check: %v", err)
	}
	for _, bad := range []job.Task{{Job: "j1", ID: "t7", Kind: "k", Epoch: 1}, {Job: "j.1", ID: "t7", Kind: "k", Check: "c"}, {Job: "j1", ID: "t7", Check: "c"}} {
		if _, err := decodeTask(encodeTask(bad).Header, nil); !errors.Is(err, ErrMalformed) {
			t.Errorf("task %+v decoded: %v", bad, err)
		}
	}
	if a, b := job.PayloadCheck([]byte("abc")), job.PayloadCheck([]byte("abd")); a == b || a != "364b3fb7-3" {
		t.Errorf("checks %s and %s", a, b)
	}
}

// An input's name depends on every byte, and blocks of different sizes do
// not collide.
func TestInputNames(t *testing.T) {
	seen := map[string]int{}
	for _, size := range []int{0, 1, 4<<20 - 1, 4 << 20, 4<<20 + 1, 9 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		in := NewInput(data)
		if again := NewInput(bytes.Clone(data)); again.Name != in.Name || !bytes.Equal(in.Data, data) {
			t.Errorf("%d bytes: named %s, then %s", size, in.Name, again.Name)
		}
		if prev, ok := seen[in.Name]; ok {
			t.Errorf("%d and %d bytes have the same name %s", prev, size, in.Name)
		}
		seen[in.Name] = size
		for _, at := range []int{0, size / 2, size - 1} {
			if size == 0 {
				break
			}
			changed := bytes.Clone(data)
			changed[at]++
			if NewInput(changed).Name == in.Name {
				t.Errorf("%d bytes: byte %d changed, the name did not", size, at)
			}
		}
	}
}

// The naming scheme, against digests computed apart (Python's hashlib):
// SHA-256 of the concatenated SHA-256 digests of the 4 MiB blocks.
func TestInputNameScheme(t *testing.T) {
	big := make([]byte, 9<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456"},
		{[]byte("abc"), "4f8b42c22dd3729b519ba6f68d2da7cc5b2d606d05daed5ad5128cc03e6c6358"},
		{big, "d91a5f53b44b61d34b3753478d684a9bada3fbb791801de349c36521e20ffe22"},
	} {
		if got := NewInput(c.data).Name; got != "input/"+c.want {
			t.Errorf("%d bytes: %s, want input/%s", len(c.data), got, c.want)
		}
	}
}

// A task published while its acknowledgement cannot come (played by a
// subscriber that swallows the message where the stream should be, as a
// server that died after receiving it would) is sent again, and stored
// once the stream is back, instead of waiting out the caller's context.
func TestPublishTaskRetriesALostAcknowledgement(t *testing.T) {
	b := runServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.js.DeleteStream(ctx, tasksStream); err != nil {
		t.Fatal(err)
	}
	swallowed := make(chan struct{}, 16)
	sub, err := b.nc.Subscribe(allTasksSubject, func(*nats.Msg) { swallowed <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	w := b.Work()
	go func() {
		done <- w.PublishTask(ctx, job.Task{Job: "j1", ID: "t1", Kind: "k", Epoch: 1, Check: job.PayloadCheck([]byte("p")), Payload: []byte("p")})
	}()
	<-swallowed
	if err := sub.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	if err := b.create(ctx); err != nil { // the stream again
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("publish: %v (after %v of the caller's 30 s)", err, 30*time.Second-time.Until(deadline(ctx)))
	}
	if ok, err := b.Work().HasTask(ctx, "j1", "t1"); !ok || err != nil {
		t.Errorf("task stored: %v, %v", ok, err)
	}
}

func deadline(ctx context.Context) time.Time { d, _ := ctx.Deadline(); return d }

// waitConnected polls b.Connected until it is want, for up to 30 s.
func waitConnected(t *testing.T, b *Broker, want bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for b.Connected() != want {
		if time.Now().After(deadline) {
			t.Fatalf("Connected() = %v for 30 s, want %v", !want, want)
		}
		time.Sleep(5 * time.Millisecond) // polling with a deadline
	}
}

// Connected follows the server: false while it is down, true once the
// connection is back, false once the Broker is closed.
func TestConnectedFollowsTheServer(t *testing.T) {
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	b := openOn(t, s.ClientURL())
	if !b.Connected() {
		t.Fatal("Connected() = false once opened, want true")
	}
	opts.Port = s.Addr().(*net.TCPAddr).Port
	s.Shutdown()
	s.WaitForShutdown()
	waitConnected(t, b, false)
	s, err = server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready again")
	}
	waitConnected(t, b, true)
	b.Close()
	if b.Connected() {
		t.Error("Connected() = true once closed, want false")
	}
}
