package job

import (
	"fmt"
	"strings"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// PurgeKind is the kind of the jobs that the coordinator runs itself, not
// a kind of tasks: one deletes from the coordinator's result cache every
// result that a worker computed (and quarantines the worker, whose results
// are refused from then on), or every result that a job merged, so that
// no later job is answered with them (analyze cache purge).
const PurgeKind = "cache.purge"

// PurgeParams are a purge job's parameters: one of Worker and Job.
type PurgeParams struct {
	Worker string `json:"worker,omitempty"`
	Job    string `json:"job,omitempty"`
}

// Check tells what is wrong with p, if anything.
func (p PurgeParams) Check() error {
	switch {
	case (p.Worker == "") == (p.Job == ""):
		return fmt.Errorf("%s: want a worker or a job, one of them", PurgeKind)
	case p.Worker != "" && !tasks.ValidID(p.Worker):
		return fmt.Errorf("%s: worker %q: 1 to 64 letters, digits, '-' and '_'", PurgeKind, p.Worker)
	case p.Job != "" && !tasks.ValidID(p.Job):
		return fmt.Errorf("%s: job %q is not a job id", PurgeKind, p.Job)
	}
	return nil
}

// PurgeReport is a purge job's report.
type PurgeReport struct {
	Worker string `json:"worker,omitempty"`
	Job    string `json:"job,omitempty"`
	// Purged counts the results deleted from the cache.
	Purged int `json:"purged"`
	// Quarantined tells that the worker is quarantined (now or before).
	Quarantined bool `json:"quarantined,omitempty"`
}

// Text renders the report for a terminal.
func (r *PurgeReport) Text() string {
	var b strings.Builder
	if r.Worker != "" {
		tasks.Row(&b, "worker", "%s (quarantined: its results are refused from now on)", r.Worker)
	} else {
		tasks.Row(&b, "job", "%s", r.Job)
	}
	tasks.Row(&b, "results purged", "%d from the result cache (computed again when asked)", r.Purged)
	return b.String()
}
