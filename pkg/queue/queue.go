// Package queue is wopr's adapter to NATS JetStream: the streams, consumers
// and key-value bucket the runtime uses, the subjects they carry, and the
// typed messages that travel on them.
//
// Layout (all names are built here and nowhere else):
//
//	stream WOPR_TASKS    work queue, subjects wopr.tasks.<job>.<task>, one durable
//	                     pull consumer "workers" shared by every worker
//	stream WOPR_RESULTS  work queue, subjects wopr.results.<job>, one durable pull
//	                     consumer "coordinator"
//	stream WOPR_DEAD     captures the MAX_DELIVERIES advisories of "workers"
//	                     (consumer "coordinator-dead")
//	KV     wopr_jobs     one record per job: spec, state, progress, report
//	OBJ    wopr_objects  job inputs (content-addressed) and outputs, kept 14 days
package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of streams, consumers and the jobs bucket.
const (
	TasksStream     = "WOPR_TASKS"
	ResultsStream   = "WOPR_RESULTS"
	DeadStream      = "WOPR_DEAD"
	WorkersConsumer = "workers"
	CoordConsumer   = "coordinator"
	DeadConsumer    = "coordinator-dead"
	JobsBucket      = "wopr_jobs"
	ObjectsBucket   = "wopr_objects"
)

// objectTTL is how long job inputs and outputs are kept.
const objectTTL = 14 * 24 * time.Hour

// TaskSubject is the subject of one task.
func TaskSubject(job, task string) string { return "wopr.tasks." + job + "." + task }

// JobTasksSubject matches every task of a job.
func JobTasksSubject(job string) string { return "wopr.tasks." + job + ".>" }

// ResultSubject is the subject workers publish a job's results on.
func ResultSubject(job string) string { return "wopr.results." + job }

func maxDeliveriesSubject() string {
	return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + TasksStream + "." + WorkersConsumer
}

var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidToken reports whether s may be used as a job or task id: it becomes a
// subject token and a KV key.
func ValidToken(s string) bool { return tokenRE.MatchString(s) }

// Config holds the JetStream settings. The zero value is not useful; start
// from DefaultConfig.
type Config struct {
	// Memory keeps streams in memory (tests); otherwise they are on disk.
	Memory bool
	// Replicas of each stream and the bucket (3 on a cluster).
	Replicas int
	// AckWait is how long a worker may hold a task without a heartbeat
	// before it is redelivered; workers send InProgress every AckWait/4.
	AckWait time.Duration
	// MaxDeliver is how often a task is delivered before it goes to the
	// dead-letter stream and is reported as failed.
	MaxDeliver int
	// MaxAckPending bounds the tasks out with workers at once.
	MaxAckPending int
}

// DefaultConfig returns the settings from shared/notes/nats-jetstream.md.
func DefaultConfig() Config {
	return Config{Replicas: 1, AckWait: 60 * time.Second, MaxDeliver: 6, MaxAckPending: 256}
}

// Broker is an open connection to JetStream with wopr's streams and bucket.
type Broker struct {
	NC      *nats.Conn
	JS      jetstream.JetStream
	Jobs    jetstream.KeyValue
	Tasks   jetstream.Stream
	Results jetstream.Stream
	Dead    jetstream.Stream
	Objects jetstream.ObjectStore
	Config  Config

	handoff *handoff // nil unless EnableHandoff
}

// Connect dials a NATS server the way every wopr process should: named,
// reconnecting forever once connected, and logging asynchronous errors. A
// long-running process (waitFirst) also keeps trying until the server is
// first reachable; a command line fails at once instead.
func Connect(url, name string, waitFirst bool, log *slog.Logger) (*nats.Conn, error) {
	nc, err := nats.Connect(url,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.RetryOnFailedConnect(waitFirst),
		nats.ReconnectWait(250*time.Millisecond),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if log != nil {
				subj := ""
				if sub != nil {
					subj = sub.Subject
				}
				log.Warn("nats async error", "subject", subj, "err", err)
			}
		}),
		nats.ConnectHandler(func(*nats.Conn) {
			if log != nil {
				log.Info("connected to nats", "url", url)
			}
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if log != nil && err != nil {
				log.Warn("disconnected from nats: reconnecting", "url", url, "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			if log != nil {
				log.Info("reconnected to nats", "url", url)
			}
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("connect to nats at %s: %w", url, err)
	}
	if !nc.IsConnected() && log != nil {
		log.Warn("nats not reachable yet: retrying until it is", "url", url)
	}
	return nc, nil
}

// Open ensures the streams and the jobs bucket exist (creating or updating
// them is idempotent) and returns a Broker on nc. It retries while a cluster
// elects leaders, until ctx is done.
func Open(ctx context.Context, nc *nats.Conn, cfg Config) (*Broker, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	b := &Broker{NC: nc, JS: js, Config: cfg}
	storage := jetstream.FileStorage
	if cfg.Memory {
		storage = jetstream.MemoryStorage
	}
	replicas := max(cfg.Replicas, 1)
	err = retry(ctx, func(ctx context.Context) error {
		var err error
		b.Tasks, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        TasksStream,
			Description: "wopr tasks waiting for a worker",
			Subjects:    []string{"wopr.tasks.>"},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     storage,
			Replicas:    replicas,
			Duplicates:  2 * time.Minute,
		})
		if err != nil {
			return fmt.Errorf("create stream %s: %w", TasksStream, err)
		}
		b.Results, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        ResultsStream,
			Description: "wopr task results waiting for the coordinator",
			Subjects:    []string{"wopr.results.>"},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     storage,
			Replicas:    replicas,
			Duplicates:  2 * time.Minute,
		})
		if err != nil {
			return fmt.Errorf("create stream %s: %w", ResultsStream, err)
		}
		b.Dead, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        DeadStream,
			Description: "advisories of wopr tasks that reached MaxDeliver",
			Subjects:    []string{maxDeliveriesSubject()},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create stream %s: %w", DeadStream, err)
		}
		b.Jobs, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      JobsBucket,
			Description: "wopr jobs: spec, state, progress, report",
			History:     1,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", JobsBucket, err)
		}
		b.Objects, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      ObjectsBucket,
			Description: "wopr job inputs and outputs",
			TTL:         objectTTL,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create object store %s: %w", ObjectsBucket, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Attach returns a Broker on streams and a bucket that a coordinator has set
// up, waiting for them until ctx is done. Workers and clients attach rather
// than Open, so that they never change the coordinator's settings (such as
// the number of replicas).
func Attach(ctx context.Context, nc *nats.Conn, cfg Config) (*Broker, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	b := &Broker{NC: nc, JS: js, Config: cfg}
	err = retry(ctx, func(ctx context.Context) error {
		var err error
		if b.Tasks, err = js.Stream(ctx, TasksStream); errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("stream %s: %w (has a wopr coordinator ever run on this NATS server?)", TasksStream, err)
		} else if err != nil {
			return fmt.Errorf("stream %s: %w", TasksStream, err)
		}
		if b.Results, err = js.Stream(ctx, ResultsStream); err != nil {
			return fmt.Errorf("stream %s: %w", ResultsStream, err)
		}
		if b.Dead, err = js.Stream(ctx, DeadStream); err != nil {
			return fmt.Errorf("stream %s: %w", DeadStream, err)
		}
		if b.Jobs, err = js.KeyValue(ctx, JobsBucket); err != nil {
			return fmt.Errorf("bucket %s: %w", JobsBucket, err)
		}
		if b.Objects, err = js.ObjectStore(ctx, ObjectsBucket); err != nil {
			return fmt.Errorf("object store %s: %w", ObjectsBucket, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// EnsureConsumers creates the durable consumers (the coordinator's job).
func (b *Broker) EnsureConsumers(ctx context.Context) error {
	return retry(ctx, func(ctx context.Context) error {
		_, err := b.Tasks.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:       WorkersConsumer,
			Description:   "shared by every wopr worker",
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       b.Config.AckWait,
			MaxDeliver:    b.Config.MaxDeliver,
			MaxAckPending: b.Config.MaxAckPending,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", WorkersConsumer, err)
		}
		_, err = b.Results.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:       CoordConsumer,
			Description:   "the wopr coordinator's inbox",
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       30 * time.Second,
			MaxAckPending: 1024,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", CoordConsumer, err)
		}
		_, err = b.Dead.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:     DeadConsumer,
			Description: "the wopr coordinator's dead-letter inbox",
			AckPolicy:   jetstream.AckExplicitPolicy,
			AckWait:     30 * time.Second,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", DeadConsumer, err)
		}
		return nil
	})
}

// ForgetDeliveries deletes the workers' consumer, for EnsureConsumers to
// make again: every task still queued is then delivered at once, including
// those delivered to a worker that went away without acking or handing
// them back, which would otherwise wait for AckWait. A worker whose fetch
// is cut short as it stops can drop a task the server has just sent it.
// Only for a cluster where no worker is running: an embedded one as it
// starts. (The deliveries' counts start again too, so MaxDeliver counts
// within one run of the process.)
func (b *Broker) ForgetDeliveries(ctx context.Context) error {
	err := b.Tasks.DeleteConsumer(ctx, WorkersConsumer)
	if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("delete consumer %s: %w", WorkersConsumer, err)
	}
	return nil
}

// PurgeTasks empties the work queue: every task of every job goes, queued
// or in flight. Only for a cluster where no worker is running: an embedded
// one as it starts, whose coordinator publishes again the unfinished tasks
// of the job it resumes (a task no longer queued was lost, as it sees
// it), and whose workers are then free of the tasks of other jobs, which
// could name inputs that this process does not hold (tasks.Shared).
func (b *Broker) PurgeTasks(ctx context.Context) error {
	if err := b.Tasks.Purge(ctx); err != nil {
		return fmt.Errorf("purge the work queue: %w", err)
	}
	return nil
}

// WorkerConsumer returns the shared task consumer, waiting until the
// coordinator has created it.
func (b *Broker) WorkerConsumer(ctx context.Context) (jetstream.Consumer, error) {
	var c jetstream.Consumer
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		c, err = b.Tasks.Consumer(ctx, WorkersConsumer)
		if err != nil {
			return fmt.Errorf("consumer %s (is a coordinator running?): %w", WorkersConsumer, err)
		}
		return nil
	})
	return c, err
}

// PublishTask puts a task on the work queue. The message id makes a
// re-publication in the same epoch a no-op within the dedup window.
func (b *Broker) PublishTask(ctx context.Context, t TaskMsg) error {
	id := fmt.Sprintf("%s/%s/%d", t.Job, t.Task, t.Epoch)
	msg := EncodeTask(TaskSubject(t.Job, t.Task), t)
	if err := publish(ctx, func(ctx context.Context) error {
		_, err := b.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(id))
		return err
	}); err != nil {
		return fmt.Errorf("publish task %s/%s: %w", t.Job, t.Task, err)
	}
	return nil
}

// PublishResult sends a task's result to the coordinator and waits for
// JetStream to store it. (A result stored twice is merged once.)
func (b *Broker) PublishResult(ctx context.Context, r ResultMsg) error {
	msg := EncodeResult(ResultSubject(r.Job), r)
	if err := publish(ctx, func(ctx context.Context) error {
		_, err := b.JS.PublishMsg(ctx, msg)
		return err
	}); err != nil {
		return fmt.Errorf("publish result %s/%s: %w", r.Job, r.Task, err)
	}
	return nil
}

// publishAttempt is how long one attempt of a publish waits for JetStream's
// acknowledgement before it sends the message again.
const publishAttempt = 2 * time.Second

// publish makes attempts of send until one is acknowledged or ctx ends.
// An acknowledgement lost with a server that went down never comes: a
// coordinator that waited for one with the minute of its context held up
// its job, and every other, for that minute (seen three times in three
// nats-server restarts while a job's tasks were being published). Other
// errors (a message too big, a stream gone) end it at once.
func publish(ctx context.Context, send func(ctx context.Context) error) error {
	delay := 50 * time.Millisecond
	for {
		actx, cancel := context.WithTimeout(ctx, publishAttempt)
		err := send(actx)
		timedOut := actx.Err() != nil
		cancel()
		switch {
		case err == nil:
			return nil
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

// HasTask reports whether a task of a job is still in the work queue.
func (b *Broker) HasTask(ctx context.Context, job, task string) (bool, error) {
	_, err := b.Tasks.GetLastMsgForSubject(ctx, TaskSubject(job, task))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up task %s/%s: %w", job, task, err)
	}
	return true, nil
}

// PurgeJob removes every queued or in-flight task of a job.
func (b *Broker) PurgeJob(ctx context.Context, job string) error {
	if err := b.Tasks.Purge(ctx, jetstream.WithPurgeSubject(JobTasksSubject(job))); err != nil {
		return fmt.Errorf("purge tasks of %s: %w", job, err)
	}
	return nil
}

// ErrNoJob is returned for an unknown job id.
var ErrNoJob = errors.New("no such job")

// GetJob reads a job's record and its revision.
func (b *Broker) GetJob(ctx context.Context, id string) (*Job, uint64, error) {
	if !ValidToken(id) {
		return nil, 0, fmt.Errorf("job %q: %w", id, ErrNoJob)
	}
	e, err := b.Jobs.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, fmt.Errorf("job %q: %w", id, ErrNoJob)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read job %s: %w", id, err)
	}
	var j Job
	if err := Decode(e.Value(), &j); err != nil {
		return nil, 0, fmt.Errorf("job %s: %w", id, err)
	}
	return &j, e.Revision(), nil
}

// CreateJob stores a new job record; it fails if the id exists.
func (b *Broker) CreateJob(ctx context.Context, j *Job) error {
	data, err := Encode(j)
	if err != nil {
		return err
	}
	if _, err := b.Jobs.Create(ctx, j.ID, data); err != nil {
		return fmt.Errorf("create job %s: %w", j.ID, err)
	}
	return nil
}

// UpdateJob applies change to a job's record with compare-and-set, retrying
// when another process updated it in between. change may return ErrNoChange
// to leave the record as it is.
func (b *Broker) UpdateJob(ctx context.Context, id string, change func(*Job) error) (*Job, error) {
	for {
		j, rev, err := b.GetJob(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := change(j); err != nil {
			if errors.Is(err, ErrNoChange) {
				return j, nil
			}
			return j, err
		}
		data, err := Encode(j)
		if err != nil {
			return nil, err
		}
		_, err = b.Jobs.Update(ctx, id, data, rev)
		if err == nil {
			return j, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !isWrongSequence(err) {
			return nil, fmt.Errorf("update job %s: %w", id, err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// ErrNoChange tells UpdateJob that there is nothing to write.
var ErrNoChange = errors.New("no change")

func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// ListJobs returns every job record, oldest first.
func (b *Broker) ListJobs(ctx context.Context) ([]*Job, error) {
	lister, err := b.Jobs.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var ids []string
	for k := range lister.Keys() {
		ids = append(ids, k)
	}
	var jobs []*Job
	for _, id := range ids {
		j, _, err := b.GetJob(ctx, id)
		if errors.Is(err, ErrNoJob) {
			continue
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	sortJobs(jobs)
	return jobs, nil
}

// WatchJob sends the job's record every time it changes, starting with the
// current one, until ctx is done. A slow reader gets the newest record.
func (b *Broker) WatchJob(ctx context.Context, id string) (<-chan *Job, error) {
	return b.watch(ctx, id, true)
}

// WatchJobs sends every job record as it is written, the existing ones
// first, until ctx is done; it drops none.
func (b *Broker) WatchJobs(ctx context.Context) (<-chan *Job, error) {
	return b.watch(ctx, ">", false)
}

// watch decodes the records of the keys matching keys. Records that do not
// decode (not written by wopr) are skipped.
func (b *Broker) watch(ctx context.Context, keys string, newestOnly bool) (<-chan *Job, error) {
	w, err := b.Jobs.Watch(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("watch jobs %s: %w", keys, err)
	}
	out := make(chan *Job, 1)
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
				var j Job
				if err := Decode(e.Value(), &j); err != nil {
					continue
				}
				if newestOnly {
					select {
					case <-out:
					default:
					}
				}
				select {
				case out <- &j:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// retry calls f until it succeeds or ctx is done, backing off up to 2 s.
// JetStream API calls fail for a while when a cluster elects leaders or a
// server is starting.
func retry(ctx context.Context, f func(ctx context.Context) error) error {
	delay := 50 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := f(cctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}
