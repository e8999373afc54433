// Package job is the vocabulary of wopr's runtime: the record the cluster
// keeps of each job (its tasks.Spec, state, progress and report), the
// states a job moves through, job ids, and the tasks, results and
// deliveries that pass between the coordinator and the workers. What a
// kind sees of a job (its Spec, its failures) is the kind contract's, in
// pkg/tasks, which imports nothing of the runtime. Package job knows
// nothing of NATS or Badger: the adapters store and carry these values,
// and the coordinator, the worker and the client speak them.
package job

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
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
	Submitted State = "submitted"
	Running   State = "running"
	Done      State = "done"
	Cancelled State = "cancelled"
	Failed    State = "failed"
)

// Final reports whether no more work will happen on a job in this state.
func (s State) Final() bool { return s == Done || s == Cancelled || s == Failed }

// Record is a job's record: spec, state, progress and, once done, the
// report. The coordinator owns it; clients only set CancelRequested.
type Record struct {
	ID     string     `json:"id"`
	Spec   tasks.Spec `json:"spec"`
	State  State      `json:"state"`
	Epoch  int        `json:"epoch"`
	Tasks  int        `json:"tasks"`
	Done   int        `json:"done"`
	Failed int        `json:"failed"`
	// Stages is the number of stages of a job whose tasks run a stage at
	// a time (tasks.Staged: one past the last stage's number), 0 for any
	// other; Stage is the open stage, the first with a task not merged,
	// from 0 (Stages once every task is merged).
	Stages int `json:"stages,omitempty"`
	Stage  int `json:"stage,omitempty"`
	// Note is what the job's plan says of its progress in its own terms
	// (tasks.Progresses), "" if nothing.
	Note string `json:"note,omitempty"`
	// CachedTasks counts the tasks done that were answered from the result
	// cache; CacheHits the positions or puzzles workers took from their
	// caches (tasks.Summary).
	CachedTasks int       `json:"cached_tasks,omitempty"`
	CacheHits   int64     `json:"cache_hits"`
	Submitted   time.Time `json:"submitted"`
	Started     time.Time `json:"started,omitzero"`
	Finished    time.Time `json:"finished,omitzero"`
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
	// Outputs maps output names (such as "out") to the objects holding them.
	Outputs map[string]string `json:"outputs,omitempty"`
	// OutputParts gives the number of parts of each output written a part
	// at a time as it was made (objects "<object>/<i>" from i = 0; see
	// broker.Objects.DownloadTo); an output not named is one object.
	OutputParts map[string]int `json:"output_parts,omitempty"`
	// Text is the report rendered for a terminal.
	Text string `json:"text,omitempty"`
}

// Summary is a job's record without its report, failures and outputs:
// what a list of jobs shows of each, and what analyze --json and the web's
// API print for one.
type Summary struct {
	ID              string          `json:"id"`
	Kind            string          `json:"kind"`
	Params          json.RawMessage `json:"params"`
	State           State           `json:"state"`
	Tasks           int             `json:"tasks"`
	Done            int             `json:"done"`
	Failed          int             `json:"failed"`
	CachedTasks     int             `json:"cached_tasks"`
	CacheHits       int64           `json:"cache_hits"`
	Submitted       time.Time       `json:"submitted"`
	Started         time.Time       `json:"started,omitzero"`
	Finished        time.Time       `json:"finished,omitzero"`
	ElapsedSeconds  float64         `json:"elapsed_seconds"`
	CancelRequested bool            `json:"cancel_requested,omitempty"`
	Error           string          `json:"error,omitempty"`
	Note            string          `json:"note,omitempty"` // the plan's words on its progress
}

// Summary summarises the record. Parameters that are not valid JSON (a
// record written by something other than wopr) are null, so that the
// summary always encodes.
func (r *Record) Summary() Summary {
	params := r.Spec.Params
	if !json.Valid(params) {
		params = json.RawMessage("null")
	}
	return Summary{
		ID: r.ID, Kind: r.Spec.Kind, Params: params, State: r.State, Tasks: r.Tasks, Done: r.Done, Failed: r.Failed,
		CachedTasks: r.CachedTasks, CacheHits: r.CacheHits, Submitted: r.Submitted, Started: r.Started, Finished: r.Finished,
		ElapsedSeconds: r.Elapsed().Seconds(), CancelRequested: r.CancelRequested, Error: r.Error, Note: r.Note,
	}
}

// New returns the record of a job about to be submitted, with a fresh id.
func New(spec tasks.Spec) *Record {
	now := time.Now()
	return &Record{ID: NewID(now), Spec: spec, State: Submitted, Submitted: now}
}

// Elapsed is the job's run time so far (or in total, once finished): the
// time since it started, or, for a job finished or resumed, RunSeconds,
// which leaves out the time between an interruption and the resume.
func (r *Record) Elapsed() time.Duration {
	switch {
	case r.Started.IsZero():
		return 0
	case r.RunSeconds > 0 && (!r.Finished.IsZero() || r.Epoch > 1):
		return r.Ran()
	case !r.Finished.IsZero():
		return r.Finished.Sub(r.Started)
	}
	return time.Since(r.Started)
}

// Ran is RunSeconds as a duration, rounded to the nanosecond, so that it
// gives back the duration whose Seconds() it was written from: truncating
// lost a nanosecond for about one duration in fifty, and a job's record
// and its report then disagreed in their last digits.
func (r *Record) Ran() time.Duration {
	return time.Duration(math.Round(r.RunSeconds * float64(time.Second)))
}

// Sort orders records oldest first (by submission, then id).
func Sort(records []*Record) {
	slices.SortFunc(records, func(a, b *Record) int {
		if c := a.Submitted.Compare(b.Submitted); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// NewID returns a fresh job id: the submission time and a random suffix,
// sortable and valid (tasks.ValidID).
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// ErrNotFound is returned for an unknown job id.
var ErrNotFound = errors.New("no such job")

// ErrNoChange, returned by the change function of an update, leaves the
// record as it is.
var ErrNoChange = errors.New("no change")
