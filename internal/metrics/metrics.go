// Package metrics is wopr's adapter to Prometheus, and the only package
// that imports client_golang: a registry of wopr's metrics whose methods
// are the hooks the coordinator (coordinator.Metrics) and the worker
// (worker.Metrics) call, the Go runtime's and the process's collectors, and
// an HTTP server for /metrics, /healthz and /readyz.
//
// Every wopr metric is named wopr_*; its labels are bounded: a job kind, a
// job state, a reason, never a job or task id.
package metrics

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Names of wopr's metrics. The dashboard's test checks its queries
// against them (Names).
const (
	TasksCompleted   = "wopr_tasks_completed_total"
	TasksFailed      = "wopr_tasks_failed_total"
	TasksRetried     = "wopr_tasks_retried_total"
	TasksRedelivered = "wopr_tasks_redelivered_total"
	TaskDuration     = "wopr_task_duration_seconds"
	CacheHitsTotal   = "wopr_cache_hits_total"
	ResultsMerged    = "wopr_results_merged_total"
	JobsByState      = "wopr_jobs"
	QueuePending     = "wopr_queue_pending_tasks"
	QueueInFlight    = "wopr_queue_inflight_tasks"
)

// Values of the label "reason" of wopr_tasks_failed_total and "cache" of
// wopr_cache_hits_total.
const (
	// ReasonError: the worker reported the task as one that can never
	// succeed (its kind rejected it, or its run panicked).
	ReasonError = "error"
	// ReasonMaxDeliver: the coordinator gave the task up after
	// --max-deliver deliveries (workers crashed or timed out on it).
	ReasonMaxDeliver = "max_deliver"
	// CacheResult: a whole task answered from the coordinator's result
	// cache, never published.
	CacheResult = "result"
	// CacheItem: per-item results (positions, puzzles) a task found in its
	// worker's store.
	CacheItem = "item"
)

// durationBuckets are the upper bounds of wopr_task_duration_seconds: 1 ms
// to 25 minutes, each 2.5 times the one before. Tasks are sized to take
// from milliseconds (a chunk of Sudoku puzzles) to minutes (a deep mnk
// solve); a factor of 2.5 keeps quantiles within that of the truth with
// 16 buckets per kind.
var durationBuckets = prometheus.ExponentialBuckets(0.001, 2.5, 16)

// Registry holds wopr's metrics and the Go and process collectors. Its
// methods are safe for concurrent use.
type Registry struct {
	reg *prometheus.Registry

	completed   *prometheus.CounterVec
	failed      *prometheus.CounterVec
	retried     *prometheus.CounterVec
	redelivered *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	cacheHits   *prometheus.CounterVec
	merged      *prometheus.CounterVec
	jobs        *prometheus.GaugeVec
	pending     prometheus.Gauge
	inFlight    prometheus.Gauge

	queueOnce sync.Once
}

// New returns a registry with wopr's metrics, Go's runtime metrics (go_*)
// and the process's (process_*).
func New() *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		completed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: TasksCompleted,
			Help: "Tasks a worker ran and whose result it published, by job kind."}, []string{"kind"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: TasksFailed,
			Help: "Tasks given up: reason=error, reported by a worker (can never succeed); reason=max_deliver, by the coordinator after --max-deliver deliveries."},
			[]string{"kind", "reason"}),
		retried: prometheus.NewCounterVec(prometheus.CounterOpts{Name: TasksRetried,
			Help: "Task runs that failed with a transient error and were handed back to be retried after a delay, by job kind."}, []string{"kind"}),
		redelivered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: TasksRedelivered,
			Help: "Tasks a worker received that had been delivered before (a worker died, handed it back, or retried it), by job kind."}, []string{"kind"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: TaskDuration,
			Help: "Time a worker took to run a task whose result it published, by job kind.", Buckets: durationBuckets}, []string{"kind"}),
		cacheHits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: CacheHitsTotal,
			Help: "Cache hits: cache=result, tasks the coordinator answered from its result cache; cache=item, per-item results a worker found in its store."},
			[]string{"kind", "cache"}),
		merged: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ResultsMerged,
			Help: "Task results the coordinator merged into their jobs (each task once), by job kind."}, []string{"kind"}),
		jobs: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: JobsByState,
			Help: "Job records in the cluster's jobs bucket, by state, as the active coordinator sees them."}, []string{"state"}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: QueuePending,
			Help: "Tasks in the work queue, waiting or with a worker, sampled by the coordinator every few seconds."}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: QueueInFlight,
			Help: "Tasks delivered to workers and not yet acknowledged, sampled by the coordinator every few seconds."}),
	}
	r.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		r.completed, r.failed, r.retried, r.redelivered, r.duration, r.cacheHits, r.merged, r.jobs,
	)
	return r
}

// TaskDone counts a task whose result a worker published, and the seconds
// its run took.
func (r *Registry) TaskDone(kind string, seconds float64) {
	r.completed.WithLabelValues(kind).Inc()
	r.duration.WithLabelValues(kind).Observe(seconds)
}

// TaskFailed counts a task a worker reported as one that can never succeed.
func (r *Registry) TaskFailed(kind string) { r.failed.WithLabelValues(kind, ReasonError).Inc() }

// TaskRetried counts a run that failed with a transient error and was
// handed back to be retried.
func (r *Registry) TaskRetried(kind string) { r.retried.WithLabelValues(kind).Inc() }

// TaskRedelivered counts a task delivered to a worker more than once.
func (r *Registry) TaskRedelivered(kind string) { r.redelivered.WithLabelValues(kind).Inc() }

// CacheHits counts n per-item results that a task found in its worker's
// store.
func (r *Registry) CacheHits(kind string, n int64) {
	r.cacheHits.WithLabelValues(kind, CacheItem).Add(float64(n))
}

// ResultMerged counts a task result the coordinator merged into its job.
func (r *Registry) ResultMerged(kind string) { r.merged.WithLabelValues(kind).Inc() }

// TaskCached counts a task the coordinator answered from its result cache.
func (r *Registry) TaskCached(kind string) {
	r.cacheHits.WithLabelValues(kind, CacheResult).Inc()
}

// TaskDeadLettered counts a task the coordinator gave up after MaxDeliver
// deliveries.
func (r *Registry) TaskDeadLettered(kind string) {
	r.failed.WithLabelValues(kind, ReasonMaxDeliver).Inc()
}

// Jobs sets the number of job records in state.
func (r *Registry) Jobs(state string, n int) { r.jobs.WithLabelValues(state).Set(float64(n)) }

// Queue is the work queue as the queue gauges sample it (broker.Work).
type Queue interface {
	// QueuedTasks counts the tasks waiting or with a worker.
	QueuedTasks(ctx context.Context) (uint64, error)
	// InFlight counts the tasks delivered and not yet acknowledged.
	InFlight(ctx context.Context) (int, error)
}

// SampleQueue sets wopr_queue_pending_tasks and wopr_queue_inflight_tasks
// from q now and every period, until the returned stop is called (stop
// waits for the sampling goroutine). The gauges are registered on the first
// call: only the process that samples (the coordinator) exposes them. A
// sample that fails (NATS unreachable) leaves the gauges as they were.
func (r *Registry) SampleQueue(q Queue, every time.Duration, log *slog.Logger) (stop func()) {
	r.queueOnce.Do(func() { r.reg.MustRegister(r.pending, r.inFlight) })
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			sctx, scancel := context.WithTimeout(ctx, every)
			if n, err := q.QueuedTasks(sctx); err == nil {
				r.pending.Set(float64(n))
			} else if ctx.Err() == nil {
				log.Debug("sample the work queue", "err", err)
			}
			if n, err := q.InFlight(sctx); err == nil {
				r.inFlight.Set(float64(n))
			} else if ctx.Err() == nil {
				log.Debug("sample the tasks in flight", "err", err)
			}
			scancel()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}
