package worker

// Metrics receives what a worker does with its tasks, labelled by job
// kind (internal/metrics implements it for Prometheus). Config.Metrics nil
// counts nothing.
type Metrics interface {
	// TaskDone counts a task whose result was published, and the
	// seconds its run took.
	TaskDone(kind string, seconds float64)
	// TaskFailed counts a task reported as one that can never succeed.
	TaskFailed(kind string)
	// TaskRetried counts a run that failed with a transient error and was
	// handed back to be retried after a delay.
	TaskRetried(kind string)
	// TaskRedelivered counts a task received that was delivered before.
	TaskRedelivered(kind string)
	// CacheHits counts the per-item results a task found in the
	// worker's store (tasks.Output.CacheHits).
	CacheHits(kind string, n int64)
}

// unknownKind labels the tasks whose kind this worker does not know (or
// could not read): kinds are the label's values, and only those linked
// into the binary keep it bounded.
const unknownKind = "unknown"

type noMetrics struct{}

func (noMetrics) TaskDone(string, float64) {}
func (noMetrics) TaskFailed(string)        {}
func (noMetrics) TaskRetried(string)       {}
func (noMetrics) TaskRedelivered(string)   {}
func (noMetrics) CacheHits(string, int64)  {}
