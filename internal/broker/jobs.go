package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Jobs is the bucket of job records: one JSON value per job id, changed
// with compare-and-set. The client creates a job's record, the coordinator
// takes the job up from it and writes its progress and report there, and
// a worker reads it to drop the tasks of a job that is over.
type Jobs struct {
	c  *conn
	kv jetstream.KeyValue
}

// encodeRecord encodes a job record. Its report keeps its text as it is:
// json.Marshal would escape the <, > and & of a json.RawMessage.
func encodeRecord(r *job.Record) ([]byte, error) {
	data, err := tasks.MarshalPlain(r)
	if err != nil {
		return nil, fmt.Errorf("encode job %s: %w", r.ID, err)
	}
	return data, nil
}

func decodeRecord(data []byte) (*job.Record, error) {
	var r job.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode job record: %w", err)
	}
	return &r, nil
}

// Get reads a job's record and its revision. An unknown id is an error
// wrapping job.ErrNotFound.
func (j *Jobs) Get(ctx context.Context, id string) (*job.Record, uint64, error) {
	if !tasks.ValidID(id) {
		return nil, 0, fmt.Errorf("job %q: %w", id, job.ErrNotFound)
	}
	var value []byte
	var rev uint64
	err := j.c.request(ctx, func(ctx context.Context) error {
		e, err := j.kv.Get(ctx, id)
		if err == nil {
			value, rev = e.Value(), e.Revision()
		}
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		// The bucket's Get is answered by any of its replicas, and one that
		// has not yet applied a job's creation says it does not exist: a
		// coordinator took a job just submitted for one deleted and never
		// ran it, and a worker dropped its tasks. The leader confirms.
		err = j.c.request(ctx, func(ctx context.Context) error {
			var err error
			value, rev, err = j.leaderGet(ctx, id)
			return err
		})
	}
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, fmt.Errorf("job %q: %w", id, job.ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read job %s: %w", id, err)
	}
	r, err := decodeRecord(value)
	if err != nil {
		return nil, 0, fmt.Errorf("job %s: %w", id, err)
	}
	return r, rev, nil
}

// leaderGet reads a job's record from the leader of the bucket's
// stream: its value and revision, or jetstream.ErrKeyNotFound.
func (j *Jobs) leaderGet(ctx context.Context, id string) ([]byte, uint64, error) {
	req, err := json.Marshal(map[string]string{"last_by_subj": jobKeySubject(id)})
	if err != nil {
		return nil, 0, err
	}
	m, err := j.c.nc.RequestWithContext(ctx, jobsMsgGetSubject, req)
	if err != nil {
		return nil, 0, err
	}
	var resp struct {
		Message *struct {
			Seq    uint64 `json:"seq"`
			Header []byte `json:"hdrs"`
			Data   []byte `json:"data"`
		} `json:"message"`
		Error *jetstream.APIError `json:"error"`
	}
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return nil, 0, fmt.Errorf("stream message: %w", err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
		return nil, 0, jetstream.ErrKeyNotFound
	case resp.Error != nil:
		return nil, 0, resp.Error
	case resp.Message == nil:
		return nil, 0, errors.New("stream message: empty answer")
	}
	if len(resp.Message.Header) > 0 {
		h, err := nats.DecodeHeadersMsg(resp.Message.Header)
		if err != nil {
			return nil, 0, fmt.Errorf("stream message: %w", err)
		}
		if op := h.Get("KV-Operation"); op == "DEL" || op == "PURGE" {
			return nil, 0, jetstream.ErrKeyNotFound // deleted
		}
	}
	return resp.Message.Data, resp.Message.Seq, nil
}

// Create stores a new job record; it fails if the id exists.
func (j *Jobs) Create(ctx context.Context, r *job.Record) error {
	data, err := encodeRecord(r)
	if err != nil {
		return err
	}
	if _, err := j.kv.Create(ctx, r.ID, data); err != nil {
		return fmt.Errorf("create job %s: %w", r.ID, err)
	}
	return nil
}

// Submit stores a new job for the coordinator to pick up and returns its
// record.
func (j *Jobs) Submit(ctx context.Context, spec tasks.Spec) (*job.Record, error) {
	r := job.New(spec)
	if err := j.Create(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// Update applies change to a job's record with compare-and-set, retrying
// when another process updated it in between. change may return
// job.ErrNoChange to leave the record as it is.
func (j *Jobs) Update(ctx context.Context, id string, change func(*job.Record) error) (*job.Record, error) {
	for {
		r, rev, err := j.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := change(r); err != nil {
			if errors.Is(err, job.ErrNoChange) {
				return r, nil
			}
			return r, err
		}
		data, err := encodeRecord(r)
		if err != nil {
			return nil, err
		}
		// Sent again when its answer is lost: if the first one was
		// applied, the second fails with the revision, and change sees
		// the record as changed.
		err = j.c.request(ctx, func(ctx context.Context) error {
			_, err := j.kv.Update(ctx, id, data, rev)
			return err
		})
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !isWrongSequence(err) {
			return nil, fmt.Errorf("update job %s: %w", id, err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// List returns every job record, oldest first. The records come from
// one watch of the bucket, not a request per record (its keys, then a Get
// of each), whose cost grew with the bucket for every submission, which
// looks for an unfinished job with its spec. BenchmarkListJobs measures it.
func (j *Jobs) List(ctx context.Context) ([]*job.Record, error) {
	entries, err := listBucket(ctx, j.kv)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	records := make([]*job.Record, 0, len(entries))
	for _, e := range entries {
		if r, err := decodeRecord(e.Value()); err == nil {
			records = append(records, r)
		}
	}
	job.Sort(records)
	return records, nil
}

// errStalled is a listing of a bucket that received nothing for
// requestAttempt: the request that made its consumer, or a message, went
// with a server that died.
var errStalled = errors.New("no entry for " + requestAttempt.String())

// listRecheck is how often a listing that has had the watch's marker, but
// fewer keys than the bucket holds, reads the bucket's count again (a key
// that expired meanwhile is never delivered).
const listRecheck = 20 * time.Millisecond

// listBucket returns the current entry of every key of kv that is not
// deleted, in no order, from one watch of the bucket rather than a
// request per key. A watch that stalls (errStalled) is made again.
func listBucket(ctx context.Context, kv jetstream.KeyValue) ([]jetstream.KeyValueEntry, error) {
	for {
		entries, err := watchBucket(ctx, kv)
		if errors.Is(err, errStalled) && ctx.Err() == nil {
			continue // a request lost: the watch again
		}
		return entries, err
	}
}

// watchBucket is one watch of listBucket. The watch's marker of the end
// of the initial values is not enough: it comes when a message's count of
// those still pending reaches zero, and while records change that count
// can reach zero early (nats-io/nats-server#4824; a listing of 30 records
// while two goroutines updated them missed one or two in 33 of 300, before
// this). So the watch is read, deletions included, until it has delivered
// as many keys as the bucket holds (one message a key: every bucket that
// is listed keeps History 1). The count is read from the server at the
// marker, then only when the keys delivered reach the count last read
// (keys written meanwhile raise it) or every listRecheck (keys that
// expired lower it).
func watchBucket(ctx context.Context, kv jetstream.KeyValue) ([]jetstream.KeyValueEntry, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := time.AfterFunc(requestAttempt, cancel)
	defer stall.Stop()
	stalled := func(err error) error {
		if ctx.Err() == nil && wctx.Err() != nil {
			return errStalled
		}
		return err
	}
	w, err := kv.WatchAll(wctx)
	if err != nil {
		return nil, stalled(err)
	}
	defer w.Stop()
	seen := map[string]jetstream.KeyValueEntry{} // the newest entry of each key
	var want uint64                              // the bucket's count of keys, as last read
	var recheck <-chan time.Time                 // nil until the marker
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, stalled(errors.New("watch stopped"))
			}
			if e == nil {
				tick := time.NewTicker(listRecheck)
				defer tick.Stop()
				recheck = tick.C
				break
			}
			stall.Reset(requestAttempt)
			seen[e.Key()] = e // delivered in the order written: newest last
			if recheck == nil || uint64(len(seen)) < want {
				continue
			}
		case <-recheck:
		case <-wctx.Done():
			return nil, stalled(wctx.Err())
		}
		st, err := kv.Status(wctx)
		if err != nil {
			return nil, stalled(err)
		}
		if want = st.Values(); uint64(len(seen)) >= want {
			entries := make([]jetstream.KeyValueEntry, 0, len(seen))
			for _, e := range seen {
				if e.Operation() == jetstream.KeyValuePut {
					entries = append(entries, e)
				}
			}
			return entries, nil
		}
	}
}

// Watch sends the job's record every time it changes, starting with the
// current one, until ctx is done. A slow reader gets the newest record.
func (j *Jobs) Watch(ctx context.Context, id string) (<-chan *job.Record, error) {
	return j.watch(ctx, id, true)
}

// WatchAll sends every job record as it is written, the existing ones
// first, until ctx is done; it drops none.
func (j *Jobs) WatchAll(ctx context.Context) (<-chan *job.Record, error) {
	return j.watch(ctx, ">", false)
}

// watch decodes the records of the keys matching keys. Records that do not
// decode (not written by wopr) are skipped.
func (j *Jobs) watch(ctx context.Context, keys string, newestOnly bool) (<-chan *job.Record, error) {
	w, err := j.kv.Watch(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("watch jobs %s: %w", keys, err)
	}
	out := make(chan *job.Record, 1)
	go func() {
		defer close(out)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue
				}
				r, err := decodeRecord(e.Value())
				if err != nil {
					continue
				}
				if newestOnly {
					select {
					case <-out:
					default:
					}
				}
				select {
				case out <- r:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// waitPoll is how often Wait also reads the job's record: a watch recovers
// from a restarted NATS server only when its heartbeats time out (12-18 s),
// and a finished job should not wait for that.
const waitPoll = 2 * time.Second

// Wait follows a job until it is final and returns its last record. It calls
// progress (if not nil) with every change. It returns Err if the connection
// fails for good meanwhile.
func (j *Jobs) Wait(ctx context.Context, id string, progress func(*job.Record)) (*job.Record, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates, err := j.Watch(wctx, id)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A watch that cannot start (its consumer not created while a
		// restarted node rejoins the cluster, or not permitted) leaves
		// the poll, which then reports progress too.
		j.c.log.Warn("following the job by reading its record every few seconds", "job", id, "err", err)
		updates = nil
	}
	poll := time.NewTicker(waitPoll)
	defer poll.Stop()
	for {
		var r *job.Record
		select {
		case u, ok := <-updates:
			if !ok {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				return nil, fmt.Errorf("watch job %s: stopped", id)
			}
			r = u
		case <-poll.C:
			gctx, gcancel := context.WithTimeout(wctx, waitPoll)
			rec, _, err := j.Get(gctx, id)
			gcancel()
			if err != nil || updates != nil && !rec.State.Final() {
				continue // the watch reports progress
			}
			r = rec
		case <-j.c.fail.done:
			return nil, j.c.fail.err
		}
		if progress != nil {
			progress(r)
		}
		if r.State.Final() {
			return r, nil
		}
	}
}

// Cancel asks the coordinator to cancel a job. It returns the record as
// written; cancelling a final job changes nothing.
func (j *Jobs) Cancel(ctx context.Context, id string) (*job.Record, error) {
	return j.Update(ctx, id, func(r *job.Record) error {
		if r.State.Final() || r.CancelRequested {
			return job.ErrNoChange
		}
		r.CancelRequested = true
		return nil
	})
}
