package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

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
	ID        string    `json:"id"`
	Spec      Spec      `json:"spec"`
	State     State     `json:"state"`
	Epoch     int       `json:"epoch"`
	Tasks     int       `json:"tasks"`
	Done      int       `json:"done"`
	Failed    int       `json:"failed"`
	CacheHits int64     `json:"cache_hits"`
	Submitted time.Time `json:"submitted"`
	Started   time.Time `json:"started,omitzero"`
	Finished  time.Time `json:"finished,omitzero"`
	// RunSeconds is how long the job has run, summed over the lives of
	// coordinators that ran it (each counted to its last progress write):
	// the time between an interruption and the resume is not in it.
	RunSeconds      float64         `json:"run_seconds,omitempty"`
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

// Elapsed is the job's run time so far (or in total, once finished): the
// time since it started, or, for a job finished or resumed, RunSeconds,
// which leaves out the time between an interruption and the resume.
func (j *Job) Elapsed() time.Duration {
	switch {
	case j.Started.IsZero():
		return 0
	case j.RunSeconds > 0 && (!j.Finished.IsZero() || j.Epoch > 1):
		return time.Duration(j.RunSeconds * float64(time.Second))
	case !j.Finished.IsZero():
		return j.Finished.Sub(j.Started)
	}
	return time.Since(j.Started)
}

// TaskMsg is a task on the work queue. On the wire the fields are headers
// and the payload is the message body, as it is: no encoding of a payload
// (which may be 100 KB of puzzles) inside another.
type TaskMsg struct {
	Job   string `json:"job"`
	Task  string `json:"task"`
	Kind  string `json:"kind"`
	Epoch int    `json:"epoch"`
	// Check is PayloadCheck(Payload), echoed in the task's result, so that
	// a result is merged only into the task it was computed for (empty from
	// builds before it).
	Check   string `json:"check,omitempty"`
	Payload []byte `json:"payload"`
}

// ResultMsg is a worker's answer to one task: its output, or the reason it
// can never succeed. On the wire the fields are headers and Data is the body.
type ResultMsg struct {
	Job       string `json:"job"`
	Task      string `json:"task"`
	Check     string `json:"check,omitempty"` // the task's Check
	Worker    string `json:"worker"`
	Data      []byte `json:"data,omitempty"`
	Failed    string `json:"failed,omitempty"`
	CacheHits int64  `json:"cache_hits,omitempty"`
	// Cached: answered from the worker's cache of whole tasks. Only
	// workers of builds before the coordinator kept that cache set it;
	// their results still count it.
	Cached  bool    `json:"cached,omitempty"`
	Seconds float64 `json:"seconds"`
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

// Header names of task and result messages.
const (
	hdrJob       = "Wopr-Job"
	hdrTask      = "Wopr-Task"
	hdrKind      = "Wopr-Kind"
	hdrEpoch     = "Wopr-Epoch"
	hdrWorker    = "Wopr-Worker"
	hdrFailed    = "Wopr-Failed"
	hdrCacheHits = "Wopr-Cache-Hits"
	hdrCached    = "Wopr-Cached"
	hdrSeconds   = "Wopr-Seconds"
	hdrCheck     = "Wopr-Check"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// PayloadCheck is a short checksum of a task's payload (CRC-32C, computed
// by the CPU: 14 ms for 82 MB here). A coordinator re-planning a job after
// a restart, by a build whose plan differs for the same parameters, tells
// by it the results of the old tasks from those of the new ones.
func PayloadCheck(payload []byte) string {
	return fmt.Sprintf("%08x-%d", crc32.Checksum(payload, castagnoli), len(payload))
}

// ErrMalformed is returned for a task or result message that is not one.
var ErrMalformed = errors.New("malformed message")

// EncodeTask builds the message of a task.
func EncodeTask(subject string, t TaskMsg) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Header.Set(hdrJob, t.Job)
	m.Header.Set(hdrTask, t.Task)
	m.Header.Set(hdrKind, t.Kind)
	m.Header.Set(hdrEpoch, strconv.Itoa(t.Epoch))
	if t.Check != "" {
		m.Header.Set(hdrCheck, t.Check)
	}
	m.Data = t.Payload
	return m
}

// DecodeTask reads a task message.
func DecodeTask(h nats.Header, data []byte) (TaskMsg, error) {
	t := TaskMsg{Job: h.Get(hdrJob), Task: h.Get(hdrTask), Kind: h.Get(hdrKind), Check: h.Get(hdrCheck), Payload: data}
	epoch, err := strconv.Atoi(h.Get(hdrEpoch))
	if err != nil || !ValidToken(t.Job) || !ValidToken(t.Task) || t.Kind == "" {
		return TaskMsg{}, fmt.Errorf("%w: task headers job %q task %q kind %q epoch %q", ErrMalformed, t.Job, t.Task, t.Kind, h.Get(hdrEpoch))
	}
	t.Epoch = epoch
	return t, nil
}

// EncodeResult builds the message of a result.
func EncodeResult(subject string, r ResultMsg) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Header.Set(hdrJob, r.Job)
	m.Header.Set(hdrTask, r.Task)
	m.Header.Set(hdrWorker, r.Worker)
	if r.Check != "" {
		m.Header.Set(hdrCheck, r.Check)
	}
	if r.Failed != "" {
		m.Header.Set(hdrFailed, r.Failed)
	}
	if r.CacheHits != 0 {
		m.Header.Set(hdrCacheHits, strconv.FormatInt(r.CacheHits, 10))
	}
	if r.Cached {
		m.Header.Set(hdrCached, "1")
	}
	m.Header.Set(hdrSeconds, strconv.FormatFloat(r.Seconds, 'f', -1, 64))
	m.Data = r.Data
	return m
}

// DecodeResult reads a result message.
func DecodeResult(h nats.Header, data []byte) (ResultMsg, error) {
	r := ResultMsg{Job: h.Get(hdrJob), Task: h.Get(hdrTask), Check: h.Get(hdrCheck), Worker: h.Get(hdrWorker), Failed: h.Get(hdrFailed),
		Cached: h.Get(hdrCached) == "1", Data: data}
	if !ValidToken(r.Job) || !ValidToken(r.Task) {
		return ResultMsg{}, fmt.Errorf("%w: result headers job %q task %q", ErrMalformed, r.Job, r.Task)
	}
	if v := h.Get(hdrCacheHits); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return ResultMsg{}, fmt.Errorf("%w: cache hits %q", ErrMalformed, v)
		}
		r.CacheHits = n
	}
	r.Seconds, _ = strconv.ParseFloat(h.Get(hdrSeconds), 64)
	return r, nil
}
