package coordinator

import (
	"sync"

	"github.com/woprlabs/wopr/pkg/job"
)

// Metrics receives what the coordinator merges and the job records it
// sees (internal/metrics implements it for Prometheus). Config.Metrics nil
// counts nothing.
type Metrics interface {
	// ResultMerged counts a task result merged into its job (each task
	// once, whatever was redelivered).
	ResultMerged(kind string)
	// TaskCached counts a task answered from the result cache, never
	// published.
	TaskCached(kind string)
	// TaskDeadLettered counts a task given up after MaxDeliver deliveries.
	TaskDeadLettered(kind string)
	// Jobs sets the number of job records in state.
	Jobs(state string, n int)
}

type noMetrics struct{}

func (noMetrics) ResultMerged(string)     {}
func (noMetrics) TaskCached(string)       {}
func (noMetrics) TaskDeadLettered(string) {}
func (noMetrics) Jobs(string, int)        {}

// states are the values of Metrics.Jobs's state, each set from the start
// (to 0 if no record is in it).
var states = []job.State{job.Submitted, job.Running, job.Done, job.Cancelled, job.Failed}

// jobStates counts the job records by state, from the watch of the records
// (each change) and the reconciliation (every record, which also drops the
// deleted ones), for Metrics.Jobs.
type jobStates struct {
	m     Metrics
	mu    sync.Mutex
	state map[string]job.State
	count map[job.State]int
}

func newJobStates(m Metrics) *jobStates {
	s := &jobStates{m: m, state: map[string]job.State{}, count: map[job.State]int{}}
	for _, st := range states {
		m.Jobs(string(st), 0)
	}
	return s
}

// stage orders states along a job's life: a record never goes back.
func stage(s job.State) int {
	switch {
	case s == job.Submitted:
		return 0
	case s.Final():
		return 2
	}
	return 1
}

// see counts a record as the watch delivers it.
func (s *jobStates) see(r *job.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.state[r.ID]
	if ok && old == r.State {
		return
	}
	s.state[r.ID] = r.State
	if ok {
		s.count[old]--
		s.m.Jobs(string(old), s.count[old])
	}
	s.count[r.State]++
	s.m.Jobs(string(r.State), s.count[r.State])
}

// replace counts the records of a reconciliation, every one there is. A
// record listed before the watch delivered a later version of it keeps
// the later state.
func (s *jobStates) replace(records []*job.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	state := make(map[string]job.State, len(records))
	for _, r := range records {
		st := r.State
		if old, ok := s.state[r.ID]; ok && stage(old) > stage(st) {
			st = old
		}
		state[r.ID] = st
	}
	count := map[job.State]int{}
	for _, st := range state {
		count[st]++
	}
	for st := range s.count {
		if _, ok := count[st]; !ok {
			s.m.Jobs(string(st), 0)
		}
	}
	for st, n := range count {
		s.m.Jobs(string(st), n)
	}
	s.state, s.count = state, count
}
