package broker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// smallPayload is the max_payload of the servers of these tests: results
// of a hundred KB then take several parts, of room bytes each.
const (
	smallPayload = 32 << 10
	room         = smallPayload - resultHeadroom
)

// logBuffer keeps what a Broker logs.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// runSmallServer starts a server whose messages hold smallPayload bytes,
// and opens a Broker on it, whose log it returns.
func runSmallServer(t *testing.T) (*Broker, *logBuffer) {
	t.Helper()
	url := startServer(t, func(o *server.Options) { o.MaxPayload = smallPayload }).ClientURL()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var log logBuffer
	b, err := Open(ctx, Endpoint{URL: url, Name: t.Name(), Log: slog.New(slog.NewTextHandler(&log, nil))}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if b.nc.MaxPayload() != smallPayload {
		t.Fatalf("max payload %d, want %d", b.nc.MaxPayload(), smallPayload)
	}
	return b, &log
}

// resultInbox is the coordinator's side of the results queue in a test:
// ConsumeResults runs until the test ends, and what it hands over waits in
// a channel.
type resultInbox struct {
	t       *testing.T
	b       *Broker
	results chan job.Result
	marks   int
}

func newResultInbox(t *testing.T, b *Broker) *resultInbox {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := b.Work().EnsureConsumers(ctx); err != nil {
		t.Fatal(err)
	}
	in := &resultInbox{t: t, b: b, results: make(chan job.Result, 100)}
	done := make(chan error, 1)
	go func() { done <- b.Work().ConsumeResults(ctx, func(r job.Result) { in.results <- r }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return in
}

// upTo publishes a small result, a mark, and returns every result handled
// before it: results are handled in the order they are stored, so the
// mark comes after all that was published before it.
func (in *resultInbox) upTo() []job.Result {
	in.t.Helper()
	in.marks++
	mark := job.Result{Job: "mark", Task: "m" + strconv.Itoa(in.marks), Check: "c", Worker: "w"}
	if err := in.b.Work().PublishResult(context.Background(), mark); err != nil {
		in.t.Fatal(err)
	}
	var got []job.Result
	deadline := time.After(30 * time.Second)
	for {
		select {
		case r := <-in.results:
			if r.Job == mark.Job && r.Task == mark.Task {
				return got
			}
			got = append(got, r)
		case <-deadline:
			in.t.Fatalf("the mark %s did not come in 30 s; %d results came before", mark.Task, len(got))
		}
	}
}

// held returns the bytes of parts and the results being gathered by the
// running ConsumeResults.
func held(t *testing.T, b *Broker) (bytes, results int64) {
	t.Helper()
	a := b.Work().assembling.Load()
	if a == nil {
		t.Fatal("ConsumeResults is not running")
	}
	return a.held.Load(), a.open.Load()
}

// stored returns how many messages the results queue holds.
func stored(t *testing.T, b *Broker) uint64 {
	t.Helper()
	info, err := b.Work().results.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// drained polls the results queue until it holds no message: each is
// acknowledged or terminated.
func drained(t *testing.T, b *Broker, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := stored(t, b)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d messages left in the results queue, want none", what, n)
		}
		time.Sleep(10 * time.Millisecond) // polling, with a deadline
	}
}

// randomData is n bytes that no two seeds share.
func randomData(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	return data
}

// sameResult tells whether got is want, data included.
func sameResult(got, want job.Result) bool {
	return got.Job == want.Job && got.Task == want.Task && got.Check == want.Check && got.Worker == want.Worker &&
		got.Failed == want.Failed && got.CacheHits == want.CacheHits && got.Seconds == want.Seconds && bytes.Equal(got.Data, want.Data)
}

// A result several times larger than a message goes in parts and reaches
// the coordinator once, whole, the same byte for byte; nothing is held
// afterwards. A result that fits a message goes in it, as it did before
// parts.
func TestResultInParts(t *testing.T) {
	b, _ := runSmallServer(t)
	ctx := context.Background()
	if err := b.Work().EnsureConsumers(ctx); err != nil {
		t.Fatal(err)
	}
	var wants []job.Result
	for _, size := range []int{room + 1, 7*room + 100, 8 * room} {
		want := job.Result{Job: "j1", Task: "t" + strconv.Itoa(size), Check: "c", Worker: "w", Data: randomData(uint64(size), size),
			CacheHits: 3, Seconds: 1.5}
		if err := b.Work().PublishResult(ctx, want); err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		wants = append(wants, want)
	}
	fits := job.Result{Job: "j1", Task: "small", Check: "c", Worker: "w", Data: randomData(7, room)}
	if err := b.Work().PublishResult(ctx, fits); err != nil {
		t.Fatal(err)
	}
	wants = append(wants, fits)
	if n := stored(t, b); n != 2+8+8+1 {
		t.Errorf("%d messages stored, want 2, 8 and 8 parts and 1 whole result", n)
	}
	in := newResultInbox(t, b)
	got := in.upTo()
	if len(got) != len(wants) {
		t.Fatalf("%d results handled, want %d", len(got), len(wants))
	}
	for i, want := range wants {
		if !sameResult(got[i], want) {
			t.Errorf("%s: handled %s/%s, %d bytes; want %d bytes, the same", want.Task, got[i].Job, got[i].Task, len(got[i].Data), len(want.Data))
		}
	}
	if n, open := held(t, b); n != 0 || open != 0 {
		t.Errorf("%d bytes of %d results held after they were whole", n, open)
	}
	drained(t, b, "every result handled")
}

// handParts publishes by hand parts only (nil: all) of data as attempt
// sends them, as results of task with the attempt as their worker.
func handParts(t *testing.T, b *Broker, task, attempt string, data []byte, only []int) {
	t.Helper()
	p := part{attempt: attempt, count: (len(data) + room - 1) / room, size: len(data)}
	if only == nil {
		for i := range p.count {
			only = append(only, i)
		}
	}
	for _, i := range only {
		p.index = i
		r := job.Result{Job: "j1", Task: task, Check: "c", Worker: attempt, Data: data[i*room : min((i+1)*room, len(data))]}
		if _, err := b.js.PublishMsg(context.Background(), encodePart(r, p)); err != nil {
			t.Fatal(err)
		}
	}
}

// Parts delivered twice (stored twice, as a publication sent again past
// the dedup window, or delivered again after a lost ack), before or after
// their result is whole, give one result.
func TestResultPartsTwice(t *testing.T) {
	b, _ := runSmallServer(t)
	in := newResultInbox(t, b)
	data := randomData(1, 100_000)
	handParts(t, b, "t1", "A", data, []int{0, 1, 1, 0, 2, 3})
	handParts(t, b, "t1", "A", data, nil)
	got := in.upTo()
	if len(got) != 1 || !bytes.Equal(got[0].Data, data) {
		t.Fatalf("parts stored twice: %d results handled, want one, whole", len(got))
	}
	if n, open := held(t, b); n != 0 || open != 0 {
		t.Errorf("%d bytes of %d results held after the result was whole", n, open)
	}
}

// Two attempts at publishing the result of one task (a task delivered
// again to another worker, a volatile task whose runs differ), their
// parts interleaved, give two whole results, each of its own attempt.
func TestResultAttemptsInterleaved(t *testing.T) {
	b, _ := runSmallServer(t)
	in := newResultInbox(t, b)
	a, c := randomData(1, 100_000), randomData(2, 100_000)
	for i := range 4 {
		handParts(t, b, "t1", "A", a, []int{i})
		handParts(t, b, "t1", "C", c, []int{3 - i})
	}
	got := in.upTo()
	if len(got) != 2 || !bytes.Equal(got[0].Data, a) || got[0].Worker != "A" || !bytes.Equal(got[1].Data, c) || got[1].Worker != "C" {
		for _, r := range got {
			t.Errorf("handled %s's result: %d bytes, attempt A's %v, C's %v", r.Worker, len(r.Data), bytes.Equal(r.Data, a), bytes.Equal(r.Data, c))
		}
		t.Fatalf("%d results handled, want A's and C's, whole", len(got))
	}
	if n, open := held(t, b); n != 0 || open != 0 {
		t.Errorf("%d bytes of %d results held after both were whole", n, open)
	}
}

// An attempt abandoned half way (a worker that died as it published) does
// not stop the next, whose result is handled; its parts are the first
// dropped when the parts held pass their bound, and the parts of a result
// that the bound drops, later, make no result.
func TestResultAttemptAbandoned(t *testing.T) {
	b, log := runSmallServer(t)
	b.Work().assemblyLimit = 5 * room
	in := newResultInbox(t, b)
	ctx := context.Background()
	handParts(t, b, "t1", "A", randomData(1, 4*room), []int{0, 1})
	next := job.Result{Job: "j1", Task: "t1", Check: "c", Worker: "w", Data: randomData(2, 4*room)}
	if err := b.Work().PublishResult(ctx, next); err != nil {
		t.Fatal(err)
	}
	if got := in.upTo(); len(got) != 1 || !sameResult(got[0], next) {
		t.Fatalf("after an abandoned attempt: %d results handled, want the next attempt's, whole", len(got))
	}
	if n, open := held(t, b); n != 2*room || open != 1 {
		t.Fatalf("%d bytes of %d results held, want the abandoned attempt's two parts", n, open)
	}

	// Another task's result, of 5 parts, passes the bound with the 2 held
	// (at its fifth, which makes it whole, it is no longer held as parts):
	// they are dropped, and it is whole.
	other := job.Result{Job: "j1", Task: "t2", Check: "c", Worker: "w", Data: randomData(3, 5*room)}
	if err := b.Work().PublishResult(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got := in.upTo(); len(got) != 1 || !sameResult(got[0], other) {
		t.Fatalf("past the bound: %d results handled, want t2's, whole", len(got))
	}
	if n, open := held(t, b); n != 0 || open != 0 {
		t.Errorf("%d bytes of %d results held, want none", n, open)
	}
	if !strings.Contains(log.String(), "level=WARN msg=\"dropping the parts of a result\" job=j1 task=t1 attempt=A") {
		t.Errorf("the abandoned attempt's parts were dropped without a warning:\n%s", log)
	}

	// Two results being gathered, interleaved, that do not fit the bound
	// together: the one least recently added to is dropped, with an error,
	// and its remaining parts are ignored; the other is whole.
	x, y := randomData(4, 4*room), randomData(5, 4*room)
	for i := range 4 {
		handParts(t, b, "t3", "X", x, []int{i})
		handParts(t, b, "t4", "Y", y, []int{i})
	}
	got := in.upTo()
	if len(got) != 1 || !bytes.Equal(got[0].Data, y) || got[0].Task != "t4" {
		t.Fatalf("two results past the bound: %d handled, want t4's, whole", len(got))
	}
	if !strings.Contains(log.String(), "level=ERROR msg=\"dropping the parts of a result\" job=j1 task=t3 attempt=X") {
		t.Errorf("a result dropped by the bound without an error:\n%s", log)
	}
	if n, open := held(t, b); n != 0 || open != 0 {
		t.Errorf("%d bytes of %d results held, want none", n, open)
	}
}

// The parts of a result that no part has followed for a while, by the
// clock and by the queue, are dropped.
func TestResultPartsStale(t *testing.T) {
	b, log := runSmallServer(t)
	b.Work().staleAfter = 50 * time.Millisecond
	in := newResultInbox(t, b)
	start := time.Now()
	handParts(t, b, "t1", "A", randomData(1, 4*room), []int{0, 1})
	for deadline := time.Now().Add(10 * time.Second); ; {
		in.upTo() // a message stored later, and time passes
		n, open := held(t, b)
		if n == 0 && open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of %d results still held after %v", n, open, time.Since(start))
		}
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Errorf("parts dropped after %v, before staleAfter", time.Since(start))
	}
	if !strings.Contains(log.String(), "attempt=A") || !strings.Contains(log.String(), "its publisher gave up") {
		t.Errorf("stale parts dropped without a warning:\n%s", log)
	}
	handParts(t, b, "t1", "A", randomData(1, 4*room), []int{2, 3})
	if got := in.upTo(); len(got) != 0 {
		t.Errorf("the rest of a dropped attempt made %d results", len(got))
	}
}

// A part whose headers do not say which piece of how much it is, or whose
// attempt's parts disagree, is dropped, with the attempt's other parts;
// the queue drains and nothing is held.
func TestResultPartsMalformed(t *testing.T) {
	b, log := runSmallServer(t)
	in := newResultInbox(t, b)
	for _, h := range []map[string]string{
		{hdrAttempt: "A", hdrPart: "0", hdrParts: "0", hdrSize: "0"},
		{hdrAttempt: "A", hdrPart: "2", hdrParts: "2", hdrSize: "10"},
		{hdrPart: "0", hdrParts: "2", hdrSize: "10"},
		{hdrAttempt: "A.B", hdrPart: "0", hdrParts: "2", hdrSize: "10"},
		{hdrAttempt: "A", hdrPart: "0", hdrParts: "2", hdrSize: strconv.Itoa(maxResultSize + 1)},
		{hdrAttempt: "A", hdrPart: "0", hdrParts: "2", hdrSize: "3"},
	} {
		msg := encodeResult(job.Result{Job: "j1", Task: "t1", Check: "c", Worker: "w", Data: []byte("data")})
		for k, v := range h {
			msg.Header.Set(k, v)
		}
		if _, err := b.js.PublishMsg(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	data := randomData(1, 100_000)
	handParts(t, b, "t2", "A", data, []int{0, 1})
	handParts(t, b, "t2", "A", data[:3*room], []int{2}) // says 3 parts, not 4
	handParts(t, b, "t2", "A", data, []int{2, 3})
	if got := in.upTo(); len(got) != 0 {
		t.Errorf("%d malformed results handled", len(got))
	}
	if n, open := held(t, b); n != 0 || open != 0 {
		t.Errorf("%d bytes of %d results held", n, open)
	}
	if !strings.Contains(log.String(), "its parts disagree") {
		t.Errorf("parts that disagree dropped without a warning:\n%s", log)
	}
	drained(t, b, "malformed parts dropped")
}

// A part whose publication is lost (a server that died with it) is sent
// again, and the result arrives whole, once.
func TestResultPartLost(t *testing.T) {
	direct := runServer(t)
	p := newLossyProxy(t, strings.TrimPrefix(direct.nc.ConnectedUrl(), "nats://"))
	b := openOn(t, p.url())
	in := newResultInbox(t, b)
	want := job.Result{Job: "j1", Task: "t1", Check: "c", Worker: "w", Data: randomData(1, 3<<20)}
	p.dropNext(resultSubject("j1", "w"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := b.Work().PublishResult(ctx, want)
	cancel()
	if err != nil {
		t.Fatalf("with a part's publication lost: %v", err)
	}
	if d := p.drops(); len(d) != 1 || d[0] != resultSubject("j1", "w") {
		t.Errorf("the proxy dropped %q, want a part", d)
	}
	if got := in.upTo(); len(got) != 1 || !sameResult(got[0], want) {
		t.Errorf("with a part's publication lost: %d results handled, want one, whole", len(got))
	}
}

// The headers of parts read back as written; those that do not say which
// piece of how much a part is, of which attempt, are refused.
func TestPartHeaders(t *testing.T) {
	res := job.Result{Job: "j", Task: "t", Check: "c", Worker: "w", CacheHits: 1, Seconds: 2, Data: []byte("ab")}
	for _, p := range []part{{"A", 0, 1, 2}, {"A", 0, 2, 2}, {"ABC234", 1, 2, 2}, {"A", 41, 42, 1 << 20}, {"A", 0, 1, maxResultSize}} {
		m := encodePart(res, p)
		got, err := decodePart(m.Header, m.Data)
		if err != nil || got != p || m.Subject != "wopr.results.j.w" {
			t.Errorf("part %+v: %+v, %v (subject %s)", p, got, err, m.Subject)
		}
		if r, err := decodeResult(m.Subject, m.Header, m.Data); err != nil || !sameResult(r, res) {
			t.Errorf("part %+v: result %+v, %v; want %+v", p, r, err, res)
		}
	}
	if p, err := decodePart(encodeResult(res).Header, res.Data); err != nil || p != (part{}) {
		t.Errorf("a whole result: %+v, %v; want no part", p, err)
	}
	for _, c := range []struct {
		h    map[string]string
		data string
	}{
		{map[string]string{hdrAttempt: "A", hdrPart: "0", hdrParts: "0", hdrSize: "0"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "1", hdrParts: "1", hdrSize: "5"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "-1", hdrParts: "1", hdrSize: "5"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "x", hdrParts: "1", hdrSize: "5"}, ""},
		{map[string]string{hdrPart: "0", hdrParts: "1", hdrSize: "5"}, ""},
		{map[string]string{hdrAttempt: "A.B", hdrPart: "0", hdrParts: "1", hdrSize: "5"}, ""},
		{map[string]string{hdrAttempt: "A", hdrParts: "1", hdrSize: "5"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "0", hdrSize: "5"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "0", hdrParts: "1"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "0", hdrParts: "6", hdrSize: "5"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "0", hdrParts: "1", hdrSize: "-1"}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "0", hdrParts: "1", hdrSize: strconv.Itoa(maxResultSize + 1)}, ""},
		{map[string]string{hdrAttempt: "A", hdrPart: "0", hdrParts: "1", hdrSize: "3"}, "data"},
	} {
		hdr := nats.Header{}
		for k, v := range c.h {
			hdr.Set(k, v)
		}
		if _, err := decodePart(hdr, []byte(c.data)); !errors.Is(err, ErrMalformed) {
			t.Errorf("part headers %v with %q: %v, want ErrMalformed", c.h, c.data, err)
		}
	}
}

// Whatever its headers say, a part decodes to what was encoded, or is
// refused as malformed.
func FuzzPartHeaders(f *testing.F) {
	f.Add("A", 0, 1, 10, 5)
	f.Add("ABC234", 3, 4, 100, 25)
	f.Add("", 0, 1, 1, 0)
	f.Add("A.B", 0, 1, 1, 1)
	f.Add("A", 1, 1, 1, 1)
	f.Add("A", 0, 0, 0, 0)
	f.Add("A", -1, 2, 5, 1)
	f.Add("A", 0, 3, 2, 1)
	f.Add("A", 0, 1, 2, 3)
	f.Fuzz(func(t *testing.T, attempt string, i, n, size, length int) {
		if length < 0 || length > 1<<16 {
			return
		}
		p := part{attempt: attempt, index: i, count: n, size: size}
		m := encodePart(job.Result{Job: "j", Task: "t", Check: "c", Data: make([]byte, length)}, p)
		got, err := decodePart(m.Header, m.Data)
		ok := tasks.ValidID(attempt) && n >= 1 && i >= 0 && i < n && size >= 0 && size <= maxResultSize && n <= max(size, 1) && length <= size
		switch {
		case err == nil && (!ok || got != p):
			t.Errorf("part %+v of %d bytes decoded as %+v", p, length, got)
		case err != nil && (ok || !errors.Is(err, ErrMalformed)):
			t.Errorf("part %+v of %d bytes: %v", p, length, err)
		}
	})
}
