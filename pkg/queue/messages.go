package queue

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// State is a job's lifecycle state.
type State string

// Job states. A job moves submitted -> running -> done, or to cancelled or
// failed; done, cancelled and failed are final.
const (
	StateSubmitted State = "submitted"
	StateRunning   State = "running"
	StateDone      State = "done"
	StateCancelled State = "cancelled"
	StateFailed    State = "failed"
)

// Final reports whether no more work will happen on a job in this state.
func (s State) Final() bool {
	return s == StateDone || s == StateCancelled || s == StateFailed
}

// Spec is what a user submits: a kind and its parameters.
type Spec struct {
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params"`
}

// Job is a job's record in the jobs bucket: spec, state, progress and, once
// done, the report. The coordinator owns it; clients only set
// CancelRequested, always with compare-and-set.
type Job struct {
	ID              string          `json:"id"`
	Spec            Spec            `json:"spec"`
	State           State           `json:"state"`
	Epoch           int             `json:"epoch"`
	Tasks           int             `json:"tasks"`
	Done            int             `json:"done"`
	Failed          int             `json:"failed"`
	CacheHits       int64           `json:"cache_hits"`
	Submitted       time.Time       `json:"submitted"`
	Started         time.Time       `json:"started,omitzero"`
	Finished        time.Time       `json:"finished,omitzero"`
	CancelRequested bool            `json:"cancel_requested,omitempty"`
	Error           string          `json:"error,omitempty"`
	Failures        []tasks.Failure `json:"failures,omitempty"`
	Report          json.RawMessage `json:"report,omitempty"`
	// ReportObject names the report in the object store when it is too big
	// for the record.
	ReportObject string `json:"report_object,omitempty"`
	// Outputs maps output names to objects (see tasks.OutputReport).
	Outputs map[string]string `json:"outputs,omitempty"`
	Text    string            `json:"text,omitempty"`
}

// Elapsed is the job's run time so far (or in total, once finished).
func (j *Job) Elapsed() time.Duration {
	if j.Started.IsZero() {
		return 0
	}
	if !j.Finished.IsZero() {
		return j.Finished.Sub(j.Started)
	}
	return time.Since(j.Started)
}

// TaskMsg is a task on the work queue.
type TaskMsg struct {
	Job     string `json:"job"`
	Task    string `json:"task"`
	Kind    string `json:"kind"`
	Epoch   int    `json:"epoch"`
	Payload []byte `json:"payload"`
}

// ResultMsg is a worker's answer to one task: its output, or the reason it
// can never succeed.
type ResultMsg struct {
	Job       string  `json:"job"`
	Task      string  `json:"task"`
	Worker    string  `json:"worker"`
	Data      []byte  `json:"data,omitempty"`
	Failed    string  `json:"failed,omitempty"`
	CacheHits int64   `json:"cache_hits,omitempty"`
	Cached    bool    `json:"cached,omitempty"`
	Seconds   float64 `json:"seconds"`
}

// Encode is the one codec for messages between processes.
func Encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b, nil
}

// Decode is Encode's inverse.
func Decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %T: %w", v, err)
	}
	return nil
}

func sortJobs(jobs []*Job) {
	slices.SortFunc(jobs, func(a, b *Job) int {
		if c := a.Submitted.Compare(b.Submitted); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}
