package broker

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// lossyProxy forwards the NATS connections made to it to a server, and
// drops the next message a client publishes to a subject starting with a
// given prefix: a request that a server took with it as it died, or that
// went to a stream leader that had just died.
type lossyProxy struct {
	l      net.Listener
	target string

	mu      sync.Mutex
	prefix  string // of the next subject to drop; "" none
	dropped []string
}

func newLossyProxy(t *testing.T, target string) *lossyProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{l: l, target: target}
	var wg sync.WaitGroup
	var conns sync.Map
	t.Cleanup(func() {
		l.Close()
		conns.Range(func(c, _ any) bool { c.(net.Conn).Close(); return true })
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			conns.Store(c, true)
			conns.Store(s, true)
			wg.Go(func() { _, _ = io.Copy(c, s); c.Close() })
			wg.Go(func() { p.forward(c, s); s.Close() })
		}
	})
	return p
}

func (p *lossyProxy) url() string { return "nats://" + p.l.Addr().String() }

// dropNext drops the next message published to a subject starting with
// prefix.
func (p *lossyProxy) dropNext(prefix string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prefix = prefix
}

func (p *lossyProxy) drops() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.dropped...)
}

// forward copies a client's protocol lines to the server, but for the
// message to drop (PUB subject [reply] size, or HPUB subject [reply]
// header-size total-size, then the payload).
func (p *lossyProxy) forward(client, server net.Conn) {
	r := bufio.NewReader(client)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		out := []byte(line)
		if f := strings.Fields(line); len(f) >= 3 && (f[0] == "PUB" || f[0] == "HPUB") {
			n, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				return
			}
			payload := make([]byte, n+2) // and CRLF
			if _, err := io.ReadFull(r, payload); err != nil {
				return
			}
			p.mu.Lock()
			drop := p.prefix != "" && strings.HasPrefix(f[1], p.prefix)
			if drop {
				p.prefix = ""
				p.dropped = append(p.dropped, f[1])
			}
			p.mu.Unlock()
			if drop {
				continue
			}
			out = append(out, payload...)
		}
		if _, err := server.Write(out); err != nil {
			return
		}
	}
}

// A JetStream request that is never answered costs the Broker one attempt,
// not the caller's deadline: the coordinator finishing a job once waited
// five minutes for a purge sent as the stream's leader died. Each call
// here has 5 s; without attempts, the lost request takes them all.
func TestRequestsOutliveALostRequest(t *testing.T) {
	direct := runServer(t)
	p := newLossyProxy(t, strings.TrimPrefix(direct.nc.ConnectedUrl(), "nats://"))
	b := openOn(t, p.url())
	ctx := context.Background()
	j, err := b.Jobs().Submit(ctx, tasks.Spec{Kind: "x", Params: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, prefix string
		call         func(ctx context.Context) error
	}{
		{"Jobs.Get", "$JS.API.DIRECT.GET.KV_" + jobsBucket, func(ctx context.Context) error {
			_, _, err := b.Jobs().Get(ctx, j.ID)
			return err
		}},
		{"Jobs.Update", "$KV." + jobsBucket + ".", func(ctx context.Context) error {
			_, err := b.Jobs().Update(ctx, j.ID, func(r *job.Record) error { r.Done++; return nil })
			return err
		}},
		{"Jobs.List", "$JS.API.CONSUMER.CREATE.KV_" + jobsBucket, func(ctx context.Context) error {
			jobs, err := b.Jobs().List(ctx)
			if err == nil && len(jobs) != 1 {
				t.Errorf("Jobs.List: %d jobs, want 1", len(jobs))
			}
			return err
		}},
		{"HasTask", "$JS.API.STREAM.MSG.GET." + tasksStream, func(ctx context.Context) error {
			_, err := b.Work().HasTask(ctx, j.ID, "t1")
			return err
		}},
		{"PurgeJob", "$JS.API.STREAM.PURGE." + tasksStream, func(ctx context.Context) error {
			return b.Work().PurgeJob(ctx, j.ID)
		}},
	} {
		p.dropNext(c.prefix)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		err := c.call(ctx)
		cancel()
		if err != nil {
			t.Errorf("%s with its request lost: %v after %v; want success within 5 s", c.name, err, time.Since(start).Round(time.Millisecond))
		}
		if d := p.drops(); len(d) == 0 || !strings.HasPrefix(d[len(d)-1], c.prefix) {
			t.Errorf("%s: the proxy dropped %q, want a request to %s...", c.name, d, c.prefix)
		}
		p.dropNext("")
	}
	got, _, err := b.Jobs().Get(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Done != 1 {
		t.Errorf("job after one update: done %d, want 1", got.Done)
	}
}
