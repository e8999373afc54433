package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// QueueState is the depth of the work queue.
type QueueState struct {
	// Queued counts the tasks waiting or with a worker, InFlight those
	// with a worker, Dead those given up on (MaxDeliver) that the
	// coordinator has not reported failed yet.
	Queued   uint64 `json:"queued"`
	InFlight int    `json:"in_flight"`
	Dead     uint64 `json:"dead_letters"`
}

// WorkerState is a worker as analyze workers shows it: its announcement
// and whether it is alive.
type WorkerState struct {
	job.Worker
	Alive bool `json:"alive"`
	// SeenAgo is the time since its last announcement, in seconds.
	SeenAgo float64 `json:"seen_seconds_ago"`
}

// WorkersReport is what analyze workers prints.
type WorkersReport struct {
	Workers []WorkerState `json:"workers"`
	Alive   int           `json:"alive"`
	Queue   QueueState    `json:"queue"`
}

// ClusterReport is what analyze status prints of the cluster as a whole.
type ClusterReport struct {
	// Coordinator holds the lease (nil: none does, and jobs wait).
	Coordinator *broker.Holder `json:"coordinator"`
	Workers     []WorkerState  `json:"workers"`
	Alive       int            `json:"alive"`
	Slots       int            `json:"slots"`
	Busy        int            `json:"busy"`
	Queue       QueueState     `json:"queue"`
	// Jobs counts the jobs by state.
	Jobs map[job.State]int `json:"jobs"`
	// Embedded is set for the embedded default, whose coordinator and
	// workers run only inside a command; Host names the process whose
	// embedded cluster runs them now (analyze serve), if one does.
	Embedded bool             `json:"embedded,omitempty"`
	Host     *embedded.Holder `json:"host,omitempty"`
}

// Workers prints the workers that announced themselves, with the depth of
// the work queue.
func Workers(ctx context.Context, o Options) error {
	return inspect(ctx, &o, func(ctx context.Context, s *session) error {
		ws, alive, err := s.workerStates(ctx)
		if err != nil {
			return err
		}
		q, err := s.queueState(ctx)
		if err != nil {
			return err
		}
		rep := WorkersReport{Workers: ws, Alive: alive, Queue: q}
		if o.JSON {
			return printJSON(o.Stdout, rep)
		}
		printWorkers(o, ws, s.cluster != nil)
		fmt.Fprintf(o.Stdout, "%d alive; %s\n", alive, q)
		return nil
	})
}

// ClusterStatus prints the state of the cluster as a whole: the
// coordinator, the workers, the work queue and the jobs by state.
func ClusterStatus(ctx context.Context, o Options) error {
	return inspect(ctx, &o, func(ctx context.Context, s *session) error {
		rep := ClusterReport{Jobs: map[job.State]int{}, Embedded: s.cluster != nil || s.joined != nil, Host: s.joined}
		var err error
		if rep.Coordinator, err = s.coords.Holder(ctx); err != nil {
			return err
		}
		if rep.Workers, rep.Alive, err = s.workerStates(ctx); err != nil {
			return err
		}
		for _, w := range rep.Workers {
			if w.Alive {
				rep.Slots += w.Slots
				rep.Busy += w.Busy
			}
		}
		if rep.Queue, err = s.queueState(ctx); err != nil {
			return err
		}
		jobs, err := s.jobs.List(ctx)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			rep.Jobs[j.State]++
		}
		if o.JSON {
			return printJSON(o.Stdout, rep)
		}
		w := o.Stdout
		switch {
		case rep.Host != nil:
			fmt.Fprintf(w, "coordinator  the embedded cluster of %q (pid %d), which runs this directory's jobs\n", rep.Host.Command, rep.Host.PID)
		case rep.Embedded:
			fmt.Fprintln(w, "cluster: the embedded default (its coordinator and workers run inside each command)")
		case rep.Coordinator != nil:
			fmt.Fprintf(w, "coordinator  %s\n", rep.Coordinator)
		default:
			fmt.Fprintln(w, "coordinator  none holds the lease: submitted jobs wait until one starts")
		}
		fmt.Fprintf(w, "workers      %d alive (%s, %d busy)", rep.Alive, tasks.Count(rep.Slots, "slot"), rep.Busy)
		if gone := len(rep.Workers) - rep.Alive; gone > 0 {
			fmt.Fprintf(w, ", %d stopped or lost in the last 10 minutes", gone)
		}
		fmt.Fprintf(w, "\nqueue        %s\n", rep.Queue)
		var states []string
		for _, st := range []job.State{job.Submitted, job.Running, job.Done, job.Failed, job.Cancelled} {
			states = append(states, fmt.Sprintf("%d %s", rep.Jobs[st], st))
		}
		fmt.Fprintf(w, "jobs         %s\n", strings.Join(states, ", "))
		return nil
	})
}

func (q QueueState) String() string {
	return fmt.Sprintf("%s queued (%d with workers), %s", tasks.Count(int(q.Queued), "task"), q.InFlight, tasks.Count(int(q.Dead), "dead letter"))
}

// workerStates lists the workers, and counts those alive.
func (s *session) workerStates(ctx context.Context) ([]WorkerState, int, error) {
	list, err := s.workers.List(ctx)
	if err != nil {
		return nil, 0, err
	}
	now := time.Now()
	out := make([]WorkerState, 0, len(list))
	alive := 0
	for _, w := range list {
		st := WorkerState{Worker: w, Alive: w.Alive(now), SeenAgo: now.Sub(w.Seen).Seconds()}
		if st.Alive {
			alive++
		}
		out = append(out, st)
	}
	return out, alive, nil
}

func (s *session) queueState(ctx context.Context) (QueueState, error) {
	var q QueueState
	var err error
	if q.Queued, err = s.queue.QueuedTasks(ctx); err != nil {
		return q, err
	}
	if q.InFlight, err = s.queue.InFlight(ctx); err != nil {
		return q, err
	}
	q.Dead, err = s.queue.DeadLetters(ctx)
	return q, err
}

// printWorkers prints a table of workers.
func printWorkers(o Options, ws []WorkerState, embedded bool) {
	if len(ws) == 0 {
		if embedded {
			fmt.Fprintln(o.Stdout, "no workers: the embedded default starts its workers inside each command (--nats URL lists a cluster's)")
		} else {
			fmt.Fprintln(o.Stdout, "no worker has announced itself in the last 10 minutes")
		}
		return
	}
	fmt.Fprintf(o.Stdout, "%-28s %-20s %5s %5s %9s %7s %10s  %-8s %s\n", "WORKER", "HOST", "SLOTS", "BUSY", "DONE", "FAILED", "LAST SEEN", "STATE", "KINDS")
	all := tasks.Names()
	for _, w := range ws {
		state := "alive"
		switch {
		case w.Stopped:
			state = "stopped"
		case !w.Alive:
			state = "lost"
		}
		kinds := strings.Join(w.Kinds, ",")
		if slices.Equal(w.Kinds, all) {
			kinds = fmt.Sprintf("all %d", len(all))
		}
		fmt.Fprintf(o.Stdout, "%-28s %-20s %5d %5d %9d %7d %10s  %-8s %s\n", w.Name, w.Host, w.Slots, w.Busy, w.Done, w.Failed,
			ago(time.Duration(w.SeenAgo*float64(time.Second))), state, kinds)
	}
}

// ago writes d as "4s ago", "3m ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh ago", int(d.Hours()))
}
