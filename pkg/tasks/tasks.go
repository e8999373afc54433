// Package tasks defines the job kind, wopr's single extension point.
//
// A kind validates a job's parameters and splits the job into tasks (Plan),
// runs one task with an engine (a Runner), and merges task results into a
// report (Plan.Merge, Plan.Report). The runtime (coordinator, worker and
// their adapters to NATS JetStream and Badger) knows kinds only through the
// interfaces of this package, so adding a kind of job means adding one Kind
// and one CLI command. docs/kinds.md walks through an example.
//
// Every function of a kind is deterministic: Plan called twice with the
// same parameters gives the same tasks with the same ids (a restarted
// coordinator relies on it), Run called twice with the same payload gives
// the same result (the coordinator caches it, and JetStream may deliver a
// task twice) unless the task is Volatile, and the report does not depend
// on the order in which results were merged.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// allowed. env lends the job's inputs. ctx is done when the job is
	// cancelled or the coordinator stops: a plan that loops over many
	// tasks or positions checks it now and then and returns its error.
	Plan(ctx context.Context, params json.RawMessage, env PlanEnv) (Plan, error)
	// NewRunner returns a task runner for one worker slot. Runners are not
	// shared between goroutines, so they may keep memo tables across tasks.
	NewRunner(env Env) Runner
}

// PlanEnv is what the runtime lends a kind while it plans a job.
type PlanEnv struct {
	// Job is the job's id, for a plan whose tasks name what they write
	// for other tasks of the job (and only for them) by it; "" in tests.
	Job string
	// Objects holds the job's inputs, uploaded by the client.
	Objects Objects
	// Outputs receives the job's outputs, for a plan that writes them
	// while results are merged (Outputs.Create), or nil (nothing keeps
	// them). The report writes to the same outputs (Summary.Outputs).
	Outputs Outputs
	// Result reads back the result of a task that was merged (what Merge
	// was given), so that a plan need not hold a result until it is its
	// turn; nil: the plan keeps what it needs.
	Result func(ctx context.Context, id string) ([]byte, error)
	// MaxTasks is the most tasks the job may have (0: the package's
	// MaxTasks). A kind that is no Sizer refuses, as it plans, a job that
	// would have more (TooManyTasks); a Sizer's jobs were checked before.
	MaxTasks int
}

// Limit returns the most tasks the job may have.
func (e PlanEnv) Limit() int {
	if e.MaxTasks > 0 {
		return e.MaxTasks
	}
	return MaxTasks
}

// Objects is the cluster's store of big blobs (JetStream Object Store): job
// inputs uploaded by the client, outputs written by reports.
type Objects interface {
	// Get returns an object's content, which the caller must not change.
	Get(ctx context.Context, name string) ([]byte, error)
	Put(ctx context.Context, name string, data []byte) error
}

// Deleter is Objects that can delete an object: a kind whose tasks write
// objects that later tasks of the job read (the pieces of a level count)
// deletes them once they are read, when the store can.
type Deleter interface {
	// Delete deletes the object name; nothing if there is none.
	Delete(ctx context.Context, name string) error
}

// Inputs is where a client stores a job's inputs before it submits the
// job: the cluster's object store, as the submit side of a kind sees it.
type Inputs interface {
	// UploadContent stores data under a name made from its content and
	// returns the name, which the job's parameters give to its tasks.
	UploadContent(ctx context.Context, data []byte) (string, error)
	// UploadFileRange names data, the bytes of the file at path from
	// offset at, as UploadContent would. Where Lends, it leaves them in
	// the file and records where they are; otherwise it stores them.
	UploadFileRange(ctx context.Context, data []byte, path string, at int64) (string, error)
	// Lends tells whether every reader of the cluster is on this machine
	// and reads what UploadFileRange names from its file.
	Lends() bool
}

// InputStore is where a job's submit side stored its inputs (Inputs), as
// a kind that deletes them once the job is done sees it (ReleasesInputs).
type InputStore interface {
	// PurgePieces deletes every piece of every input at once.
	PurgePieces(ctx context.Context) error
	// DeleteContent deletes what was stored under name.
	DeleteContent(ctx context.Context, name string) error
}

// ReleasesInputs is a Kind whose jobs' inputs may be deleted once a job is
// done: inputs named by their content, which no finished job reads again
// (the same job run again uploads them again). The client that ran a job
// calls ReleaseInputs with the job's parameters once the job is done and
// its outputs are written, and only when no other job of the store is
// unfinished (one would read its inputs when it is resumed) and no other
// client shares the store (the embedded default: a client that uploads
// inputs meanwhile, for a job not yet submitted, would lose them). The
// kind deletes what the job stored; an error leaves the rest to the
// store's time to live.
type ReleasesInputs interface {
	ReleaseInputs(ctx context.Context, store InputStore, params json.RawMessage) error
}

// Plan is a job split into tasks, and knows how to merge their results.
//
// The runtime calls Merge exactly once for the result of every task that
// succeeded (a task that failed is in Summary.Failures instead), one call
// at a time, in any order, then Report once. Results are deltas: the report
// must not depend on the order of the merges. Merge may keep data, which
// nobody changes afterwards. A Merge error is a bug or damage (a result
// that cannot be read): the job fails with it.
type Plan interface {
	// Tasks lists the tasks in a fixed order. Ids are short, unique within
	// the job and valid ValidID. Once a task's result is merged the
	// runtime drops its payload (sets it to nil in this slice): Report may
	// read the payloads of failed tasks only. The runtime does not call it
	// on an Indexed plan.
	Tasks() []Task
	// Merge adds the result of task id, as Run returned it.
	Merge(id string, data []byte) error
	// Report builds the job's report from what was merged. The figures every
	// job has (tasks, failures, cache hits, elapsed time, completeness) are
	// the runtime's: the report leaves them out (see Compose).
	Report(ctx context.Context, sum Summary) (Report, error)
}

// Indexed is a Plan that makes each of its tasks when it is asked for, from
// the job's parameters, rather than holding them all: the runtime then
// keeps a few bits per task, whatever the payloads, and publishes each
// task as it makes it. It asks for a task by its position rather than in
// one pass because it needs some again later (one lost with an earlier
// life of the coordinator, one whose result was computed for another
// version of it), and a task's id in a result must lead back to it. A
// kind of many small tasks (a simulation's games) plans so; its Tasks
// returns ListOf(plan), for tests and small jobs. Task(i) must be
// Tasks()[i], every time.
type Indexed interface {
	// Len is the number of tasks.
	Len() int
	// Task makes task i, 0 <= i < Len().
	Task(i int) Task
	// Index is the position of the task with this id; false for an id
	// that no task has.
	Index(id string) (int, bool)
}

// ListOf is every task of p, in order: Tasks of an Indexed plan.
func ListOf(p Indexed) []Task {
	list := make([]Task, p.Len())
	for i := range list {
		list[i] = p.Task(i)
	}
	return list
}

// Report is a kind's part of a job's report: marshalled to a JSON object,
// to which the runtime adds the fields of Common, and rendered for a
// terminal by Text, to which the runtime adds the lines of Common.
type Report interface {
	Text() string
}

// Task is one unit of work: an id and an opaque payload for the kind's Runner.
type Task struct {
	ID      string
	Payload []byte
	// Volatile marks a task whose result depends on more than its payload,
	// such as a search under a time budget (a faster machine searches
	// deeper). The coordinator neither answers such a task from its cache
	// nor stores its result there: a rerun runs it again.
	Volatile bool
}

// Summary is what the runtime knows of a job when it asks for the report.
type Summary struct {
	Job      string
	Tasks    int
	Failures []Failure
	// CachedTasks counts the tasks answered from the result cache (the
	// results of the same tasks in an earlier job), not computed by this
	// job; FromCache, if set, tells which. A kind whose report has rates
	// or times counts those tasks' work apart (see Cached).
	CachedTasks int
	FromCache   func(id string) bool
	// CacheHits counts the items (positions, puzzles) that workers took
	// from their own caches while they computed this job's tasks
	// (tasks.Output.CacheHits).
	CacheHits int64
	// Refused counts the results refused (not their task's token, from a
	// quarantined worker, failing their check, outvoted); Verified the
	// tasks whose result a second worker confirmed; Quarantined names the
	// workers this job quarantined.
	Refused     int
	Verified    int
	Quarantined []string
	Elapsed     time.Duration
	// Outputs receives the files the job writes for its user (nil: the job
	// asked for none, or nothing keeps them).
	Outputs Outputs
}

// Cached tells whether task id was answered from the result cache rather
// than computed by this job.
func (s Summary) Cached(id string) bool { return s.FromCache != nil && s.FromCache(id) }

// Failed tells whether task id failed.
func (s Summary) Failed(id string) bool {
	for _, f := range s.Failures {
		if f.Task == id {
			return true
		}
	}
	return false
}

// PutOutput stores data as the job's output name, for the client that
// follows the job to write to its file. Without Outputs it does nothing.
func (s Summary) PutOutput(ctx context.Context, name string, data []byte) error {
	if s.Outputs == nil {
		return nil
	}
	return s.Outputs.Put(ctx, name, data)
}

// Outputs receives a job's outputs (files for the user, such as --out).
type Outputs interface {
	// Put stores the output name whole.
	Put(ctx context.Context, name string, data []byte) error
	// Create starts the output name, or starts it over, for an output
	// written a part at a time, in order, as it is made: one larger than
	// memory. The output exists once the writer is closed without error;
	// ctx bounds Create, not the writes.
	Create(ctx context.Context, name string) (io.WriteCloser, error)
}

// Checks is a Plan that can tell cheaply whether a task's result can be
// right, from the result and the task alone: a Sudoku solution against its
// givens and the rules, a count against its own identities. The runtime
// calls Check with each result a worker sends before it stores or merges
// it (under the rules of Merge); an error refuses the result, and the
// worker that sent it is quarantined.
type Checks interface {
	Check(id string, data []byte) error
}

// Progresses is a Plan that says how far its job has got in its own terms,
// for the job's progress line: "first moves (up to symmetry): 3 of 10
// refuted, 0 won". The runtime calls Progress now and then while the job
// runs, under the rules of Merge (never during a Merge or the Report), and writes what it
// returns to the job's record (job.Record.Note); "" says nothing.
type Progresses interface {
	Progress() string
}

// MergesFailures is a Plan that is told of each task that failed when it
// fails, as it is told of results: the runtime calls MergeFailure once for
// every task that failed (the task is then in Summary.Failures), under the
// rules of Merge, so that the plan can write what follows the task in
// order without waiting for the report.
type MergesFailures interface {
	MergeFailure(id string) error
}

// Staged is a Plan whose tasks run in stages: a task of a later stage
// reads what the tasks of the stages before it wrote (the positions of a
// count's ply, which the tasks of the next ply expand), so it must not run
// before they are done. The runtime publishes the tasks of stage s only
// once every task of every earlier stage is merged (its result or its
// failure). When a task fails, every task of the stages after its own
// fails without running, with a reason that names it, so that the job
// ends incomplete rather than waiting for them. Stages are numbered from 0
// and never decrease along the task order (Tasks(), or Task(i) of an
// Indexed plan); a number skipped is a stage without tasks.
//
// A task answered from the result cache does not run: one whose work is
// also what it writes for the next stage (an object named by its job) is
// Volatile, unless what it writes is named by its payload and kept as long
// as the cache keeps its result. A task may run again after its stage is
// merged (JetStream delivers at least once), while a later stage runs:
// what it writes is the same every time, and replaced whole.
type Staged interface {
	Stage(i int) int // the stage of task i
}

// OutputPrefix starts the object names of outputs: "output/<job>/<name>".
// An output is read by the client that follows the job; in one process
// (the embedded default) it is written straight to the client's file.
const OutputPrefix = "output/"

// OutputObject is the object name of a job's output.
func OutputObject(job, name string) string { return OutputPrefix + job + "/" + name }

// Runner runs tasks of one kind inside one worker slot.
type Runner interface {
	// Run computes the result of one task. It stops early when ctx is done.
	// An error wrapping ErrPermanent means the task can never succeed; any
	// other error is retried.
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
	// Objects is the cluster's object store as the worker sees it, for the
	// objects that tasks name, or nil.
	Objects Objects
	// Process holds what the runners of one worker process share (see
	// Shared), or nil when a runner is alone.
	Process *Process
	// Alone tells that this worker process is the cluster's only one (the
	// embedded default): its runners may prepare the tasks that follow
	// theirs, which on a cluster mostly go to other workers.
	Alone bool
	// Dir is a directory of the worker's own on disk, for state too large
	// for Cache that a task interrupted by a restart needs to go on (the
	// proof-number table of mnk.solve: a kind uses a subdirectory named
	// after it), or "" when the worker has none.
	Dir string
}

// Process holds the values that the runners of one worker process share
// (Shared). The zero value is ready to use; it is safe for concurrent use.
type Process struct {
	mu sync.Mutex
	m  map[any]any // by *Shared
}

// Shared is a value of type T that the runners of one worker process
// share: what is worth computing once per process rather than once per
// slot, such as the memo of a count (pkg/tasks/mnk). A kind declares one
// in a package variable; its identity, not a name, tells it apart from
// every other kind's.
type Shared[T any] struct {
	make func() T
}

// NewShared returns a Shared whose value make makes, once per process.
func NewShared[T any](make func() T) *Shared[T] { return &Shared[T]{make: make} }

// Get returns the value of env's worker process, made for the first
// runner that asks, or a value of the runner's own when env has no
// process.
func (s *Shared[T]) Get(env Env) T {
	p := env.Process
	if p == nil {
		return s.make()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.m[s]; ok {
		return v.(T)
	}
	if p.m == nil {
		p.m = map[any]any{}
	}
	v := s.make()
	p.m[s] = v
	return v
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
