package client

import (
	"context"
	"io"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Records is the bucket of job records as a client reads and changes them
// (broker.Jobs).
type Records interface {
	Create(ctx context.Context, r *job.Record) error
	// Get returns a record and its revision; an unknown id is
	// job.ErrNotFound.
	Get(ctx context.Context, id string) (*job.Record, uint64, error)
	// List returns every record, oldest first.
	List(ctx context.Context) ([]*job.Record, error)
	// Update changes a record with compare-and-set (see job.ErrNoChange).
	Update(ctx context.Context, id string, change func(*job.Record) error) (*job.Record, error)
	// Cancel asks the coordinator to cancel a job.
	Cancel(ctx context.Context, id string) (*job.Record, error)
	// Wait follows a job until it is final, calling progress with every
	// change.
	Wait(ctx context.Context, id string, progress func(*job.Record)) (*job.Record, error)
	// WatchAll sends every record as it is written, the existing ones
	// first, until ctx is done.
	WatchAll(ctx context.Context) (<-chan *job.Record, error)
}

// Store is the cluster's object store as a client uses it: it stores the
// inputs of the jobs it submits (tasks.Inputs), has their kinds delete
// them once they are done (tasks.InputStore, tasks.ReleasesInputs), and
// reads the jobs' outputs and reports (broker.Objects).
type Store interface {
	tasks.Inputs
	tasks.InputStore
	// DownloadTo writes an object to w, in parts if it was written in
	// parts (job.Record.OutputParts).
	DownloadTo(ctx context.Context, name string, parts int, w io.Writer) error
}

// Queue is the work queue, from which a client of the embedded default,
// where no coordinator runs between commands, removes the tasks of a job
// it cancels, and whose depth it reports (broker.Work).
type Queue interface {
	PurgeJob(ctx context.Context, jobID string) error
	// QueuedTasks counts the tasks waiting or with a worker, InFlight
	// those with a worker, DeadLetters those given up on and not yet
	// reported failed.
	QueuedTasks(ctx context.Context) (uint64, error)
	InFlight(ctx context.Context) (int, error)
	DeadLetters(ctx context.Context) (uint64, error)
}

// WorkerList is the bucket of the workers' announcements (broker.Workers).
type WorkerList interface {
	List(ctx context.Context) ([]job.Worker, error)
}

// Coordinators tells which coordinator holds the cluster's lease, if one
// does (broker.Leases).
type Coordinators interface {
	Holder(ctx context.Context) (*broker.Holder, error)
}
