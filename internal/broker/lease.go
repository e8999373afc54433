package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// LeaseBucket holds the coordinator lease: a cluster runs one coordinator
// at a time (two would each merge part of a job's results into their own
// stores, and neither would see it finish).
const LeaseBucket = "wopr_coordinator"

// LeaseTTL is how long a lease lives without being renewed: a coordinator
// that died without releasing it is replaced after at most this long.
const LeaseTTL = 15 * time.Second

const leaseKey = "lease"

// Holder identifies a coordinator: ID stays the same across restarts on
// the same store, so a restarted coordinator takes its lease back at once.
type Holder struct {
	ID   string `json:"id"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	Data string `json:"data"`
}

func (h Holder) String() string { return fmt.Sprintf("%s (pid %d, --data %s)", h.Host, h.PID, h.Data) }

// Lease is a held coordinator lease. Renew and Release may be called from
// different goroutines.
type Lease struct {
	kv    jetstream.KeyValue
	value []byte

	mu  sync.Mutex
	rev uint64 // of the lease's key as this holder last wrote it
}

func (l *Lease) setRev(rev uint64) {
	l.mu.Lock()
	l.rev = rev
	l.mu.Unlock()
}

func (l *Lease) lastRev() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rev
}

// Leases is the bucket of the coordinator lease, which it creates when a
// coordinator first asks for the lease.
type Leases struct{ c *conn }

// Acquire takes the cluster's coordinator lease for h, waiting while
// another coordinator holds it (waiting is called once, with the holder).
// It returns ctx's error if ctx ends first, and Err if the connection
// fails for good.
func (ls *Leases) Acquire(ctx context.Context, h Holder, waiting func(Holder)) (*Lease, error) {
	var kv jetstream.KeyValue
	err := ls.c.retry(ctx, func(ctx context.Context) error {
		var err error
		kv, err = ls.c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      LeaseBucket,
			Description: "wopr: the coordinator that runs the cluster's jobs",
			History:     1,
			TTL:         LeaseTTL,
			Storage:     jetstream.FileStorage,
			Replicas:    ls.c.replicas(),
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create bucket %s: %w", LeaseBucket, err)
	}
	value, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	l := &Lease{kv: kv, value: value}
	// A holder with this id is this coordinator before a restart on the
	// same store (which only one process can open).
	ours := func(other Holder, _ []byte) bool { return other.ID == h.ID }
	told := false
	for {
		other, err := l.take(ctx, ours)
		switch {
		case err != nil:
			return nil, err
		case other == nil:
			return l, nil
		case !told && waiting != nil:
			waiting(*other)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ls.c.fail.done:
			return nil, ls.c.fail.err
		case <-time.After(LeaseTTL / 10):
		}
	}
}

// take takes the lease if nobody holds it or ours says the holder's lease
// is l's own, and otherwise returns the holder.
func (l *Lease) take(ctx context.Context, ours func(Holder, []byte) bool) (*Holder, error) {
	for {
		rev, err := l.kv.Create(ctx, leaseKey, l.value)
		if err == nil {
			l.setRev(rev)
			return nil, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("coordinator lease: %w", err)
		}
		e, err := l.kv.Get(ctx, leaseKey)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			continue // expired or released meanwhile
		case err != nil:
			return nil, fmt.Errorf("coordinator lease: %w", err)
		}
		var other Holder
		_ = json.Unmarshal(e.Value(), &other)
		if !ours(other, e.Value()) {
			return &other, nil
		}
		rev, err = l.kv.Update(ctx, leaseKey, l.value, e.Revision())
		if err == nil {
			l.setRev(rev)
			return nil, nil
		}
		// Changed meanwhile: look again.
	}
}

// Holder returns the coordinator that holds the lease, or nil if none does
// (none has run, or the last one stopped or died over LeaseTTL ago).
func (ls *Leases) Holder(ctx context.Context) (*Holder, error) {
	kv, err := ls.c.js.KeyValue(ctx, LeaseBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("coordinator lease: %w", err)
	}
	e, err := kv.Get(ctx, leaseKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("coordinator lease: %w", err)
	}
	var h Holder
	if err := json.Unmarshal(e.Value(), &h); err != nil {
		return nil, fmt.Errorf("coordinator lease: %w", err)
	}
	return &h, nil
}

// ErrLeaseLost says that another coordinator holds the lease now.
var ErrLeaseLost = errors.New("another coordinator holds the lease")

// Renew extends the lease by LeaseTTL. If the lease expired meanwhile (the
// server was away) and nobody took it, it is taken again; if another
// coordinator took it, Renew returns ErrLeaseLost. Other errors are
// transient: try again before LeaseTTL is up.
func (l *Lease) Renew(ctx context.Context) error {
	rev, err := l.kv.Update(ctx, leaseKey, l.value, l.lastRev())
	if err == nil {
		l.setRev(rev)
		return nil
	}
	// Only this very lease is ours here: a holder with the same id but
	// another process took it over (a restart while this one hung).
	other, err := l.take(ctx, func(_ Holder, v []byte) bool { return bytes.Equal(v, l.value) })
	switch {
	case err != nil:
		return fmt.Errorf("renew the %w", err)
	case other != nil:
		return ErrLeaseLost
	}
	return nil
}

// Release gives the lease up, so that a waiting coordinator takes over at
// once.
func (l *Lease) Release(ctx context.Context) error {
	return l.kv.Delete(ctx, leaseKey, jetstream.LastRevision(l.lastRev()))
}
