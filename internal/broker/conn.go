package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// InProcessServer is a NATS server in this process (nats-server's
// *server.Server), reached without a socket.
type InProcessServer interface {
	InProcessConn() (net.Conn, error)
	ReadyForConnections(wait time.Duration) bool
}

// Endpoint says how to reach a NATS server.
type Endpoint struct {
	// URL is a comma-separated list of server URLs (see CheckURL).
	URL string
	// Auth holds the credentials and TLS settings (for InProcess, only
	// the user and password).
	Auth Auth
	// InProcess, if set, is used instead of URL.
	InProcess InProcessServer
	// Name names the connection in the server's monitoring.
	Name string
	// WaitFirst keeps trying until the server is first reachable (a
	// long-running process); without it a server that cannot be reached is
	// an error at once (a command line). Either way, a connection once made
	// reconnects for ever. Credentials the server refuses, and a failure
	// in TLS, are an error at once, never tried again; credentials refused
	// later close Broker.Failed.
	WaitFirst bool
	// Log receives connection events and asynchronous errors (nil: none).
	Log *slog.Logger
}

// String names the server for messages, without its passwords.
func (e Endpoint) String() string {
	if e.InProcess != nil {
		return "the embedded server"
	}
	return RedactURL(e.URL)
}

// conn is the connection that every duty of a Broker goes through, with
// the settings it was opened with: one nats.go connection, one record of
// its failure, and one way of retrying requests (retry, request).
type conn struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	cfg  Config
	log  *slog.Logger
	fail *failure
}

// dial connects to e (see connect) and opens JetStream on the connection.
func dial(ctx context.Context, e Endpoint, cfg Config) (*conn, error) {
	nc, fail, err := connect(ctx, e)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	log := e.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &conn{nc: nc, js: js, cfg: cfg, log: log, fail: fail}, nil
}

func (c *conn) storage() jetstream.StorageType {
	if c.cfg.Memory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

func (c *conn) replicas() int { return max(c.cfg.Replicas, 1) }

// failure records the first error that ends a connection for good.
type failure struct {
	once sync.Once
	done chan struct{}
	err  error

	// The server's permission violations, counted: a request it denied is
	// never answered, and request and retry end on one rather than send
	// the request again for ever.
	mu      sync.Mutex
	denials uint64
	denied  error
	// deniedc is closed, and replaced, at each violation.
	deniedc chan struct{}
}

// deny records a permission violation the server reported.
func (f *failure) deny(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.denials++
	f.denied = fmt.Errorf("%w: %w", ErrPermission, err)
	if f.deniedc != nil {
		close(f.deniedc)
	}
	f.deniedc = make(chan struct{})
}

// nextDenial returns the count of violations so far and a channel closed
// at the next one.
func (f *failure) nextDenial() (uint64, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deniedc == nil {
		f.deniedc = make(chan struct{})
	}
	return f.denials, f.deniedc
}

// denialCount returns how many permission violations there have been.
func (f *failure) denialCount() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.denials
}

// deniedSince returns the last permission violation if there has been one
// since the count was n, else nil.
func (f *failure) deniedSince(n uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.denials > n {
		return f.denied
	}
	return nil
}

func (f *failure) set(err error) {
	f.once.Do(func() {
		f.err = err
		close(f.done)
	})
}

// connectWait is how long a process that waits for its server (WaitFirst)
// waits between attempts.
const connectWait = 250 * time.Millisecond

// connect dials the endpoint the way every wopr process should: named,
// reconnecting for ever once connected, and logging asynchronous errors.
// Credentials the server refuses end it at once, at the first connection
// (an error wrapping ErrAuthorization) as at a reconnection or while
// connected (the failure's channel is closed): trying again would only
// fill the server's log. So does a failure in TLS at the first
// connection (ErrTLS); at a reconnection nats.go tries again, reading the
// certificate files anew. With WaitFirst it tries again, until ctx ends,
// while the server cannot be reached.
func connect(ctx context.Context, e Endpoint) (*nats.Conn, *failure, error) {
	log := e.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fail := &failure{done: make(chan struct{})}
	opts := nats.GetDefaultOptions()
	all := []nats.Option{
		nats.Name(e.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(connectWait),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if ferr := e.refused(err); ferr != nil {
				// Refused at a reconnection, or while connected
				// (credentials revoked by a reload of the server).
				fail.set(ferr)
				return
			}
			if errors.Is(err, nats.ErrPermissionViolation) {
				fail.deny(err)
			}
			subj := ""
			if sub != nil {
				subj = sub.Subject
			}
			log.Warn("nats async error", "subject", subj, "err", err)
		}),
		nats.ConnectHandler(func(*nats.Conn) { log.Info("connected to nats", "url", e.String()) }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from nats: reconnecting", "url", e.String(), "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("reconnected to nats", "url", e.String()) }),
		nats.ClosedHandler(func(nc *nats.Conn) {
			// nats.go gives up reconnecting when a server refuses the
			// same credentials twice.
			if ferr := e.refused(nc.LastError()); ferr != nil {
				fail.set(ferr)
			}
		}),
	}
	if e.InProcess != nil {
		all = append(all, nats.InProcessServer(e.InProcess))
		if e.Auth.User != "" {
			all = append(all, nats.UserInfo(e.Auth.User, e.Auth.Password))
		}
	} else {
		// A comma-separated list of servers, as nats.Connect reads it.
		for u := range strings.SplitSeq(e.URL, ",") {
			if u = strings.TrimSpace(u); u != "" {
				opts.Servers = append(opts.Servers, u)
			}
		}
		auth, err := e.Auth.options()
		if err != nil {
			return nil, nil, err
		}
		all = append(all, auth...)
	}
	for _, o := range all {
		if err := o(&opts); err != nil {
			return nil, nil, fmt.Errorf("connect to nats at %s: %w", e, err)
		}
	}
	told := false
	for {
		nc, err := opts.Connect()
		if err == nil {
			return nc, fail, nil
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL may hold a password
		}
		if ferr := e.refused(err); ferr != nil {
			return nil, nil, ferr
		}
		if !e.WaitFirst || ctx.Err() != nil {
			return nil, nil, fmt.Errorf("connect to nats at %s: %w", e, err)
		}
		if !told {
			log.Warn("nats not reachable yet: retrying until it is", "url", e.String(), "err", err)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("connect to nats at %s: %w", e, err)
		case <-time.After(connectWait):
		}
	}
}

// tellOnce logs f's first failure, with what the caller is waiting for:
// a worker started before any coordinator should not wait in silence.
func (c *conn) tellOnce(what string, f func(ctx context.Context) error) func(ctx context.Context) error {
	told := false
	return func(ctx context.Context) error {
		err := f(ctx)
		if err != nil && !told {
			told = true
			c.log.Info(what+" (retrying until they are there)", "err", err)
		}
		return err
	}
}

// retry calls f until it succeeds, ctx is done or the connection fails
// for good (then it returns Err), backing off up to 2 s. JetStream API
// calls fail for a while when a cluster elects leaders or a server is
// starting. A request sent to a stream leader that has just died is never
// answered, and the leader of a 3-node cluster that lost a node is elected
// again 4 to 9 s later: an attempt is given 2 s at first, a second more
// each time up to 10 s (f may make several requests), so that a request
// lost costs 2 s rather than the caller's whole deadline, and an attempt
// starts soon after the new leader is there.
func (c *conn) retry(ctx context.Context, f func(ctx context.Context) error) error {
	delay, attempt := 50*time.Millisecond, retryFirstAttempt
	denials := c.fail.denialCount()
	for {
		cctx, cancel := context.WithTimeout(ctx, attempt)
		err := f(cctx)
		cancel()
		if err == nil {
			return nil
		}
		if denied := c.fail.deniedSince(denials); denied != nil {
			return denied
		}
		select {
		case <-ctx.Done():
			return err
		case <-c.fail.done:
			return c.fail.err
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
		attempt = min(attempt+time.Second, 10*time.Second)
	}
}

// retryFirstAttempt is how long retry's first attempt may take.
const retryFirstAttempt = 2 * time.Second

// requestAttempt is how long one attempt of a request waits for
// JetStream's answer before it sends the request again.
const requestAttempt = 2 * time.Second

// request makes attempts of send, one publish or JetStream API request,
// until one is answered or ctx ends. An answer lost with a server that went
// down, or a request sent to a stream leader that has just died, never
// comes: waiting for it with the whole of ctx would hold up the caller (the
// coordinator, and every job) for that long; a coordinator purging a
// finished job's tasks so waited five minutes. Other errors (a message too
// big, a stream gone, a key not found) end it at once. send must be safe to
// repeat: tasks carry a message id, results are merged once, a job record
// is updated with compare-and-set, and the other requests read or purge.
// A permission violation the server reports meanwhile ends it with that
// error: a denied request is never answered either.
func (c *conn) request(ctx context.Context, send func(ctx context.Context) error) error {
	return c.requestFor(ctx, requestAttempt, send)
}

// requestFor is request with attempts of the given length, for sends that
// move more than a message (an object of several chunks).
func (c *conn) requestFor(ctx context.Context, attempt time.Duration, send func(ctx context.Context) error) error {
	delay := 50 * time.Millisecond
	denials := c.fail.denialCount()
	for {
		actx, cancel := context.WithTimeout(ctx, attempt)
		err := send(actx)
		timedOut := actx.Err() != nil
		cancel()
		denied := c.fail.deniedSince(denials)
		switch {
		case err == nil:
			return nil
		case denied != nil:
			return denied
		case ctx.Err() != nil:
			return err
		case !timedOut && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, nats.ErrNoResponders) &&
			!errors.Is(err, jetstream.ErrNoStreamResponse) && !errors.Is(err, nats.ErrConnectionReconnecting):
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}
