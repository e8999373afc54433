package broker

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/woprlabs/wopr/pkg/job"
)

// Work is the work queue of tasks, which the coordinator publishes and
// workers take, the queue of their results, which the coordinator merges,
// and the queue of dead letters: tasks that reached MaxDeliver.
type Work struct {
	c       *conn
	tasks   jetstream.Stream
	results jetstream.Stream
	dead    jetstream.Stream

	// The bounds of the parts ConsumeResults holds (zero: assemblyLimit,
	// staleAfter), and its assembler while it runs: for tests.
	assemblyLimit int
	staleAfter    time.Duration
	assembling    atomic.Pointer[assembler]
}

// EnsureConsumers creates the durable consumers (the coordinator's job).
func (w *Work) EnsureConsumers(ctx context.Context) error {
	return w.c.retry(ctx, func(ctx context.Context) error {
		_, err := w.tasks.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:       workersConsumer,
			Description:   "shared by every wopr worker",
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       w.c.cfg.AckWait,
			MaxDeliver:    w.c.cfg.MaxDeliver,
			MaxAckPending: w.c.cfg.MaxAckPending,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", workersConsumer, err)
		}
		_, err = w.results.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:       coordConsumer,
			Description:   "the wopr coordinator's inbox",
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       30 * time.Second,
			MaxAckPending: 1024,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", coordConsumer, err)
		}
		_, err = w.dead.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:     deadConsumer,
			Description: "the wopr coordinator's dead-letter inbox",
			AckPolicy:   jetstream.AckExplicitPolicy,
			AckWait:     30 * time.Second,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", deadConsumer, err)
		}
		return nil
	})
}

// PublishTask puts a task on the work queue. The message id
// "<job>/<task>/<epoch>" makes a re-publication in the same epoch a no-op
// within the stream's two-minute dedup window.
func (w *Work) PublishTask(ctx context.Context, t job.Task) error {
	id := fmt.Sprintf("%s/%s/%d/%d", t.Job, t.ID, t.Epoch, t.Try)
	msg := encodeTask(t)
	if err := w.c.request(ctx, func(ctx context.Context) error {
		_, err := w.c.js.PublishMsg(ctx, msg, jetstream.WithMsgID(id))
		return err
	}); err != nil {
		return fmt.Errorf("publish task %s/%s: %w", t.Job, t.ID, err)
	}
	return nil
}

// HasTask reports whether a task of a job is still in the work queue
// (waiting, or with a worker).
func (w *Work) HasTask(ctx context.Context, jobID, task string) (bool, error) {
	err := w.c.request(ctx, func(ctx context.Context) error {
		_, err := w.tasks.GetLastMsgForSubject(ctx, taskSubject(jobID, task))
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up task %s/%s: %w", jobID, task, err)
	}
	return true, nil
}

// QueuedTasks counts the tasks in the work queue, waiting or with a worker.
func (w *Work) QueuedTasks(ctx context.Context) (uint64, error) {
	info, err := w.tasks.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("work queue: %w", err)
	}
	return info.State.Msgs, nil
}

// DeadLetters counts the tasks that reached MaxDeliver and wait for the
// coordinator to report them failed.
func (w *Work) DeadLetters(ctx context.Context) (uint64, error) {
	info, err := w.dead.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("dead letters: %w", err)
	}
	return info.State.Msgs, nil
}

// InFlight counts the tasks delivered to workers and neither acknowledged
// nor handed back yet: none before a coordinator made the workers'
// consumer.
func (w *Work) InFlight(ctx context.Context) (int, error) {
	c, err := w.tasks.Consumer(ctx, workersConsumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("consumer %s: %w", workersConsumer, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("consumer %s: %w", workersConsumer, err)
	}
	return info.NumAckPending, nil
}

// PurgeJob removes every queued or in-flight task of a job.
func (w *Work) PurgeJob(ctx context.Context, jobID string) error {
	if err := w.c.request(ctx, func(ctx context.Context) error {
		return w.tasks.Purge(ctx, jetstream.WithPurgeSubject(jobTasksSubject(jobID)))
	}); err != nil {
		return fmt.Errorf("purge tasks of %s: %w", jobID, err)
	}
	return nil
}

// PurgeTasks empties the work queue: every task of every job goes, queued
// or in flight. Only for a cluster where no worker is running: an embedded
// one as it starts, whose coordinator publishes again the unfinished tasks
// of the job it resumes (a task no longer queued was lost, as it sees it),
// and whose workers are then free of the tasks of other jobs.
func (w *Work) PurgeTasks(ctx context.Context) error {
	if err := w.tasks.Purge(ctx); err != nil {
		return fmt.Errorf("purge the work queue: %w", err)
	}
	return nil
}

// ForgetDeliveries deletes the workers' consumer, for EnsureConsumers to
// make again: every task still queued is then delivered at once, including
// those delivered to a worker that went away without acking or handing
// them back, which would otherwise wait for AckWait. (A worker whose fetch
// is cut short as it stops can drop a task the server has just sent it.)
// Only for a cluster where no worker is running: an embedded one as it
// starts. The deliveries' counts start again too, so MaxDeliver counts
// within one run of the process.
func (w *Work) ForgetDeliveries(ctx context.Context) error {
	err := w.tasks.DeleteConsumer(ctx, workersConsumer)
	if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("delete consumer %s: %w", workersConsumer, err)
	}
	return nil
}

// ObserveTasks calls f with every task published from now on, as it is
// published (a plain subscription: it takes nothing from the work queue),
// until ctx ends: for tests and tracing.
func (w *Work) ObserveTasks(ctx context.Context, f func(job.Task)) error {
	sub, err := w.c.nc.Subscribe(allTasksSubject, func(m *nats.Msg) {
		if t, err := decodeTask(m.Header, m.Data); err == nil {
			f(t)
		}
	})
	if err != nil {
		return fmt.Errorf("observe tasks: %w", err)
	}
	if err := w.c.nc.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return fmt.Errorf("observe tasks: %w", err)
	}
	context.AfterFunc(ctx, func() { _ = sub.Unsubscribe() })
	return nil
}

// PublishResult sends a task's result to the coordinator and waits for
// JetStream to store it, sending again what the server does not answer.
// (A result stored twice is merged once.) A result whose data does not fit
// one message goes as several, its parts, each with the result's fields
// and which piece of the data it carries, of an attempt of its own (see
// part); it returns once every part is stored, within partsWithin: a
// worker acknowledges its task only then.
func (w *Work) PublishResult(ctx context.Context, r job.Result) error {
	room := w.resultRoom()
	if len(r.Data) <= room {
		msg := encodeResult(r)
		if err := w.c.request(ctx, func(ctx context.Context) error {
			_, err := w.c.js.PublishMsg(ctx, msg)
			return err
		}); err != nil {
			return fmt.Errorf("publish result %s/%s: %w", r.Job, r.Task, err)
		}
		return nil
	}
	if len(r.Data) > maxResultSize {
		return fmt.Errorf("publish result %s/%s: %d bytes, more than a result may carry (%d)", r.Job, r.Task, len(r.Data), maxResultSize)
	}
	ctx, cancel := context.WithTimeout(ctx, partsWithin)
	defer cancel()
	p := part{attempt: rand.Text(), count: (len(r.Data) + room - 1) / room, size: len(r.Data)}
	for i := range p.count {
		p.index = i
		piece := r
		piece.Data = r.Data[i*room : min((i+1)*room, len(r.Data))]
		msg, id := encodePart(piece, p), p.attempt+"/"+strconv.Itoa(i)
		if err := w.c.request(ctx, func(ctx context.Context) error {
			_, err := w.c.js.PublishMsg(ctx, msg, jetstream.WithMsgID(id))
			return err
		}); err != nil {
			return fmt.Errorf("publish result %s/%s: part %d of %d: %w", r.Job, r.Task, i+1, p.count, err)
		}
	}
	return nil
}

// resultHeadroom is what the message of a result or of a part holds
// besides its data: the headers, a few hundred bytes (a failure's reason
// travels without data).
const resultHeadroom = 4 << 10

// resultRoom is the data that the message of a result or of a part holds:
// the server's max_payload, headers included, less their headroom.
func (w *Work) resultRoom() int {
	limit := int(w.c.nc.MaxPayload())
	return max(limit-resultHeadroom, limit/2)
}

// TaskSource is the work queue as a worker takes tasks from it.
type TaskSource struct {
	cons    jetstream.Consumer
	ackWait time.Duration
}

// Tasks returns the work queue's shared consumer, waiting until the
// coordinator has created it or ctx ends.
func (w *Work) Tasks(ctx context.Context) (*TaskSource, error) {
	c, err := w.consumer(ctx, w.tasks, workersConsumer)
	if err != nil {
		return nil, fmt.Errorf("%w (is a coordinator running?)", err)
	}
	s := &TaskSource{cons: c, ackWait: w.c.cfg.AckWait}
	if info := c.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		s.ackWait = info.Config.AckWait
	}
	return s, nil
}

// AckWait is how long a task may go without a heartbeat before it is
// delivered to another worker, as the coordinator configured it.
func (s *TaskSource) AckWait() time.Duration { return s.ackWait }

// Next waits for one task until ctx ends or wait has passed, and returns
// nil if none came. A request that ctx cuts short can lose a task that the
// server has just sent: it stays delivered, and comes back only after
// AckWait. With a ctx that is never done (context.Background), the request
// runs out instead: the server stops sending at wait, and the client waits
// a second longer for what is on its way. A worker that stops on a cluster
// asks that way.
func (s *TaskSource) Next(ctx context.Context, wait time.Duration) (job.Delivery, error) {
	opt := jetstream.FetchMaxWait(wait)
	if ctx.Done() != nil {
		fctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		opt = jetstream.FetchContext(fctx)
	}
	batch, err := s.cons.Fetch(1, opt)
	if err != nil {
		return nil, err
	}
	for msg := range batch.Messages() {
		return delivery{msg}, nil
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) &&
		!errors.Is(err, context.Canceled) {
		return nil, err
	}
	return nil, nil
}

// delivery is a job.Delivery of a JetStream message.
type delivery struct{ msg jetstream.Msg }

func (d delivery) Task() (job.Task, error) {
	t, err := decodeTask(d.msg.Headers(), d.msg.Data())
	if err != nil {
		jobID, task, _ := parseTaskSubject(d.msg.Subject())
		return job.Task{Job: jobID, ID: task}, err
	}
	return t, nil
}

func (d delivery) Delivered() uint64 {
	if meta, err := d.msg.Metadata(); err == nil {
		return meta.NumDelivered
	}
	return 1
}

func (d delivery) Heartbeat() error              { return d.msg.InProgress() }
func (d delivery) Ack(ctx context.Context) error { return d.msg.DoubleAck(ctx) }
func (d delivery) HandBack() error               { return d.msg.Nak() }

func (d delivery) Retry(after time.Duration) error { return d.msg.NakWithDelay(after) }

func (d delivery) Terminate(reason string) error { return d.msg.TermWithReason(reason) }

// ConsumeResults calls handle with each task result sent to the
// coordinator, one at a time, until ctx ends; a result is acknowledged
// when handle returns. The parts of a result too big for one message are
// acknowledged as they come and kept until the result is whole (see
// parts.go): handle is called once with each attempt's result, whole,
// never with parts of two attempts. Messages that are not results are
// logged and dropped.
func (w *Work) ConsumeResults(ctx context.Context, handle func(job.Result)) error {
	cons, err := w.consumer(ctx, w.results, coordConsumer)
	if err != nil {
		return err
	}
	limit, stale := w.assemblyLimit, w.staleAfter
	if limit <= 0 {
		limit = assemblyLimit
	}
	if stale <= 0 {
		stale = staleAfter
	}
	asm := newAssembler(w.c.log, limit, stale)
	w.assembling.Store(asm)
	defer w.assembling.Store(nil)
	return w.consume(ctx, cons, func(msg jetstream.Msg) {
		r, err := decodeResult(msg.Subject(), msg.Headers(), msg.Data())
		var p part
		if err == nil {
			p, err = decodePart(msg.Headers(), msg.Data())
		}
		if err != nil {
			w.c.log.Warn("dropping a message that is not a result", "subject", msg.Subject(), "err", err)
			_ = msg.Term()
			return
		}
		stored, now := storedAt(msg), time.Now()
		if p.count == 0 {
			asm.whole(r, stored, now)
			handle(r)
			_ = msg.Ack()
			return
		}
		_ = msg.Ack()
		if whole, ok := asm.add(r, p, stored, now); ok {
			handle(whole)
		}
	})
}

// storedAt is when the server stored msg (the zero time if it does not
// say).
func storedAt(msg jetstream.Msg) time.Time {
	if meta, err := msg.Metadata(); err == nil {
		return meta.Timestamp
	}
	return time.Time{}
}

// ConsumeDead calls handle with each task that reached MaxDeliver (its
// workers crashed or timed out on it every time) and the number of its
// deliveries, one at a time, until ctx ends. Such a task stays in a
// work-queue stream, undelivered: once handle returns it is deleted.
func (w *Work) ConsumeDead(ctx context.Context, handle func(t job.Task, deliveries uint64)) error {
	cons, err := w.consumer(ctx, w.dead, deadConsumer)
	if err != nil {
		return err
	}
	return w.consume(ctx, cons, func(msg jetstream.Msg) {
		var adv struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries uint64 `json:"deliveries"`
		}
		if err := json.Unmarshal(msg.Data(), &adv); err != nil {
			_ = msg.Term()
			return
		}
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		raw, err := w.tasks.GetMsg(actx, adv.StreamSeq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			_ = msg.Ack() // already gone (purged, or acked at the last moment)
			return
		}
		if err != nil {
			_ = msg.NakWithDelay(time.Second)
			return
		}
		if t, err := decodeTask(raw.Header, raw.Data); err == nil {
			handle(t, adv.Deliveries)
		} else {
			// Not a task, so not the coordinator's: nothing to record.
			w.c.log.Warn("dropping a dead message that is not a task", "subject", raw.Subject, "err", err)
		}
		if err := w.tasks.DeleteMsg(actx, adv.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			w.c.log.Warn("delete dead task", "seq", adv.StreamSeq, "err", err)
		}
		_ = msg.Ack()
	})
}

// consumer returns a durable consumer of stream, waiting while a cluster
// elects leaders, until ctx ends.
func (w *Work) consumer(ctx context.Context, stream jetstream.Stream, name string) (jetstream.Consumer, error) {
	var c jetstream.Consumer
	err := w.c.retry(ctx, w.c.tellOnce("waiting for the consumer "+name, func(ctx context.Context) error {
		var err error
		c, err = stream.Consumer(ctx, name)
		return err
	}))
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", name, err)
	}
	return c, nil
}

// consume feeds every message of a durable consumer to handle, one at a
// time, until ctx ends. At most 64 messages wait in the client: results can
// be hundreds of KB, and after a server restart the client asks for its
// whole buffer again, which must stay under its 64 MB limit for a
// subscription (messages over it are dropped and come back only after
// AckWait).
func (w *Work) consume(ctx context.Context, cons jetstream.Consumer, handle func(jetstream.Msg)) error {
	it, err := cons.Messages(jetstream.PullMaxMessages(64))
	if err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	stopped := context.AfterFunc(ctx, it.Stop)
	defer stopped()
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return nil
			}
			w.c.log.Warn("next message", "err", err)
			continue
		}
		handle(msg)
	}
}
