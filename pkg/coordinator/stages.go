package coordinator

import (
	"context"
	"fmt"
	"sort"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// stages is where a job of a tasks.Staged plan stands: its tasks cut into
// groups, one per stage that has tasks, with the tasks of each group not
// yet merged, and the first task that failed. A job's tasks are published
// a group at a time: those of group g once every task of the groups before
// it is merged (advance).
type stages struct {
	num    []int // the kind's number of each group's stage
	end    []int // one past each group's last task
	left   []int // tasks of each group not yet merged
	open   int   // the first group with a task not merged (len(end): none)
	failed int   // the lowest index of a task that failed, or -1
}

// stagesOf cuts the n tasks of a plan into its stages, or returns nil for
// a plan that is not tasks.Staged. It stops when ctx is done.
func stagesOf(ctx context.Context, kind string, plan tasks.Plan, list taskList) (*stages, error) {
	st, ok := plan.(tasks.Staged)
	if !ok {
		return nil, nil
	}
	s := &stages{failed: -1}
	n, prev := list.Len(), 0
	for i := range n {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		stage := st.Stage(i)
		switch {
		case stage < 0:
			return nil, fmt.Errorf("kind %s put task %s in stage %d: stages are numbered from 0", kind, list.Task(i).ID, stage)
		case stage < prev:
			return nil, fmt.Errorf("kind %s put task %s in stage %d, after a task of stage %d: stages must not decrease along the task order",
				kind, list.Task(i).ID, stage, prev)
		case i == 0 || stage > prev:
			if i > 0 {
				s.end = append(s.end, i)
			}
			s.num = append(s.num, stage)
		}
		prev = stage
	}
	if n > 0 {
		s.end = append(s.end, n)
	}
	s.left = make([]int, len(s.end))
	for g, end := range s.end {
		s.left[g] = end - s.start(g)
	}
	return s, nil
}

// start is the index of group g's first task.
func (s *stages) start(g int) int {
	if g == 0 {
		return 0
	}
	return s.end[g-1]
}

// group is the group of task i.
func (s *stages) group(i int) int { return sort.SearchInts(s.end, i+1) }

// merged counts task i as merged, failed or not.
func (s *stages) merged(i int, failed bool) {
	s.left[s.group(i)]--
	if failed && (s.failed < 0 || i < s.failed) {
		s.failed = i
	}
}

// progress is the number of the open stage and the number of stages (one
// past the last's number): the job's record shows them (job.Record.Stage,
// Stages). Both are 0 for a plan that is not staged (s nil).
func (s *stages) progress() (stage, stages int) {
	if s == nil || len(s.num) == 0 {
		return 0, 0
	}
	stages = s.num[len(s.num)-1] + 1
	if s.open == len(s.num) {
		return stages, stages
	}
	return s.num[s.open], stages
}

// openEnd is one past the last task of the open stage (n once every task
// is merged): a task below it may be published.
func (s *stages) openEnd(n int) int {
	if s.open == len(s.end) {
		return n
	}
	return s.end[s.open]
}

// advance opens the stages of r whose earlier stages are merged, and
// publishes their tasks from a goroutine of its own unless r is being
// published already (r.mu held, r planned or not yet shared). Once a
// stage with a failed task is merged, every task of the later stages
// fails without running instead.
func (c *Coordinator) advance(r *run) {
	s := r.stages
	if s == nil {
		return
	}
	for s.open < len(s.end) && s.left[s.open] == 0 {
		if s.failed >= 0 && s.failed < s.end[s.open] {
			c.failLater(r, s.end[s.open])
			s.open = len(s.end)
			break
		}
		s.open++
	}
	r.openEnd = s.openEnd(len(r.done))
	if r.pubNext >= r.openEnd || r.publishing || r.finished {
		return
	}
	r.publishing = true
	c.goFunc(func() {
		// The merges that opened the stage are written down before its
		// tasks run: those may delete what the stage before read (the
		// pieces of a level count), which a coordinator restarted
		// without those merges would run again and not find.
		err := c.cfg.DB.Flush()
		if err == nil {
			err = c.publishUnfinished(r)
		}
		if err != nil {
			// As in activate: the next reconciliation takes the job up
			// again, and publishes the open stage.
			c.log.Error("publish tasks", "job", r.id, "err", err)
			r.mu.Lock()
			r.finished = true
			r.mu.Unlock()
			c.drop(r, false)
			return
		}
		c.maybeFinish(r) // the stage's tasks may all have been in the cache
	})
}

// failLater fails every task of r from task from on that is not merged,
// as not run: a task of an earlier stage failed (r.mu held).
func (c *Coordinator) failLater(r *run, from int) {
	s := r.stages
	failed := r.tasks.Task(s.failed).ID
	reason := fmt.Sprintf("not run: task %s of stage %d failed", failed, s.num[s.group(s.failed)])
	for i := from; i < len(r.done); i++ {
		if r.done[i] {
			continue
		}
		id := r.tasks.Task(i).ID
		if err := mergeFailure(r.plan, id); err != nil {
			c.failMerge(r, id, err)
			return
		}
		r.markDone(i, storedResult{Task: id, Failed: reason})
	}
}

// opened tells whether task i is of an open stage, and may be published
// (r.mu held).
func (r *run) opened(i int) bool { return i < r.openEnd }
