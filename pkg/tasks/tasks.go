// Package tasks defines the job kind, wopr's single extension point.
//
// A kind knows how to validate a job's parameters, split the job into
// tasks, run one task with an engine, and merge task results into a report.
// The runtime (coordinator, worker and their adapters to NATS JetStream and
// Badger) knows kinds only through the interfaces in this package, so adding
// a new kind of job means adding one Kind and one CLI command.
//
// Every function of a kind is deterministic: Plan called twice with the same
// parameters gives the same tasks with the same ids (a restarted coordinator
// relies on it), Run called twice with the same payload gives the same result
// (the coordinator caches it, and JetStream may deliver a task twice), and Report
// does not depend on the order in which results arrived.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Kind is one kind of job, such as "mnk.count".
type Kind interface {
	// Name is the kind's registered name, used in job specs and task messages.
	Name() string
	// Version changes whenever the results of Run change for the same payload;
	// it is part of the key under which the coordinator caches task results.
	Version() int
	// Plan validates params and splits the job into tasks. An error wrapping
	// ErrInvalid means the parameters are wrong; the message says what is
	// allowed.
	Plan(ctx context.Context, params json.RawMessage) (Plan, error)
	// NewRunner returns a task runner for one worker slot. Runners are not
	// shared between goroutines, so they may keep memo tables across tasks.
	NewRunner(env Env) Runner
}

// EnvPlanner is implemented by kinds whose plans read the job's inputs from
// the cluster's object store; the coordinator calls PlanEnv instead of Plan.
type EnvPlanner interface {
	PlanEnv(ctx context.Context, params json.RawMessage, env PlanEnv) (Plan, error)
}

// PlanEnv is what the runtime lends a kind while it plans a job.
type PlanEnv struct {
	Objects Objects
}

// Objects is the cluster's store of big blobs (JetStream Object Store): job
// inputs uploaded by the client, outputs written by reports.
type Objects interface {
	Get(ctx context.Context, name string) ([]byte, error)
	Put(ctx context.Context, name string, data []byte) error
}

// Shared is implemented by object stores that hold objects in memory for
// the workers of this process too (the embedded default, where the client
// hands its inputs over in memory). A plan may then have its tasks name a
// piece of such an object instead of carrying a copy of it: the runner
// reads the piece where it is (Env.Objects), and the piece does not go
// through the work queue. Such tasks reach this process's workers only:
// an embedded cluster accepts no other workers and empties its work queue
// as it starts, and its coordinator publishes again what it runs.
type Shared interface {
	Shared(name string) bool
}

// OutputReport is implemented by reports that wrote outputs (files for the
// user) to the object store: output name -> object name.
type OutputReport interface {
	Outputs() map[string]string
}

// OutputPrefix starts the object names of outputs: "output/<job>/<name>".
// An output is read once, by the client that follows the job; in one
// process (the embedded default) it is handed over in memory.
const OutputPrefix = "output/"

// OutputObject is the object name of a job's output.
func OutputObject(job, name string) string { return OutputPrefix + job + "/" + name }

// Volatile is implemented by kinds some of whose tasks give results that
// depend on more than their payload, such as a search under a time budget
// (a faster machine searches deeper). The coordinator neither answers such
// a task from its cache nor stores its result there: a rerun runs it again.
type Volatile interface {
	Volatile(payload []byte) bool
}

// Plan is a job split into tasks, and knows how to merge their results.
type Plan interface {
	// Tasks lists the tasks in a fixed order. Ids are short, unique within the
	// job and made of [A-Za-z0-9_-] only. Once a task's result is merged
	// the runtime drops its payload (sets it to nil in this slice): Report
	// may read the payloads of failed tasks only.
	Tasks() []Task
	// Report merges the results of all tasks into the job's report. results
	// maps task ids to the data returned by Run; failed tasks are missing from
	// it and listed in sum.Failures.
	Report(results func(id string) ([]byte, bool), sum Summary) (Report, error)
}

// Merger is implemented by plans that merge results as they come, so that
// the report is ready soon after the last one (a million Sudoku puzzles'
// lines of --out took 0.14 s to put together at the end, with every core
// but one idle). The runtime calls Merge at most once per task, for tasks
// whose results it has (in any order; one call at a time; before Report;
// a resumed job's stored results too), and may leave some out: Report
// reads every task not merged from its results function, and gives the
// same report however many were merged, and in whatever order. Merge may
// keep data. An error leaves the task unmerged: Report meets it again.
type Merger interface {
	Merge(id string, data []byte) error
}

// Report is a kind's final report: JSON first, with a human rendering.
type Report interface {
	// Text renders the report for a terminal.
	Text() string
}

// Task is one unit of work: an id and an opaque payload for the kind's Runner.
type Task struct {
	ID      string
	Payload []byte
}

// Summary is what the runtime knows of a job when it asks for the report.
type Summary struct {
	Job       string
	Tasks     int
	Failures  []Failure
	CacheHits int64
	Elapsed   time.Duration
	// Objects receives outputs too big for the report (nil if none).
	Objects Objects
}

// PutOutput stores data as the job's output name (an object named by
// OutputObject) and records it in outputs, for a report's Outputs; without
// an object store it does nothing.
func (s Summary) PutOutput(ctx context.Context, outputs map[string]string, name string, data []byte) error {
	if s.Objects == nil {
		return nil
	}
	object := OutputObject(s.Job, name)
	if err := s.Objects.Put(ctx, object, data); err != nil {
		return err
	}
	outputs[name] = object
	return nil
}

// Failure is a task that could never succeed, with the reason.
type Failure struct {
	Task   string `json:"task"`
	Reason string `json:"reason"`
}

// Runner runs tasks of one kind inside one worker slot.
type Runner interface {
	// Run computes the result of one task. It reports work in progress by
	// calling env.Progress (cheap; call it every so often in long tasks) and
	// stops early when ctx is done. An error wrapping ErrPermanent means the
	// task can never succeed; any other error is retried.
	Run(ctx context.Context, payload []byte) (Output, error)
}

// Output is a task's result data with the figures the runtime aggregates.
type Output struct {
	Data      []byte
	CacheHits int64
}

// Env is what the runtime hands to a kind's runner.
type Env struct {
	// Cache is the worker's persistent key-value cache (Badger on disk), or
	// nil when the worker runs without one.
	Cache Cache
	// Objects is the cluster's object store as the worker sees it, for
	// the objects that tasks name (see Shared), or nil.
	Objects Objects
}

// Cache is a persistent byte cache shared by the runners of one worker
// process. Keys are namespaced by the caller.
type Cache interface {
	Get(key []byte) ([]byte, bool, error)
	// Put stores a value; writes may be batched and become durable later.
	Put(key, value []byte) error
	// Keys calls fn with every stored key that starts with prefix (the key
	// is valid only during the call).
	Keys(prefix []byte, fn func(key []byte) error) error
}

// ErrInvalid marks bad job parameters (a usage error).
var ErrInvalid = errors.New("invalid parameters")

// ErrPermanent marks a task that can never succeed.
var ErrPermanent = errors.New("permanent failure")

// Invalid returns an error wrapping ErrInvalid with a formatted message.
func Invalid(format string, args ...any) error {
	return &markedError{mark: ErrInvalid, msg: fmt.Sprintf(format, args...)}
}

// Permanent wraps err so that errors.Is(err, ErrPermanent) holds.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &markedError{mark: ErrPermanent, msg: err.Error(), cause: err}
}

type markedError struct {
	mark  error
	msg   string
	cause error
}

func (e *markedError) Error() string { return e.msg }

func (e *markedError) Is(target error) bool { return target == e.mark }

func (e *markedError) Unwrap() error { return e.cause }

var (
	registryMu sync.RWMutex
	registry   = map[string]Kind{}
)

// Register makes a kind available to the runtime. It panics on a duplicate
// name, which is a programming error.
func Register(k Kind) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[k.Name()]; dup {
		panic("tasks: kind registered twice: " + k.Name())
	}
	registry[k.Name()] = k
}

// Lookup returns the kind registered under name.
func Lookup(name string) (Kind, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	k, ok := registry[name]
	return k, ok
}

// Names lists the registered kinds in order.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
