package job

import "time"

// Worker is what a worker process announces of itself to the cluster (its
// heartbeat), and what `analyze workers` lists.
type Worker struct {
	// ID is unique to the process: Name, then its start time.
	ID   string `json:"id"`
	Name string `json:"name"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Slots is the number of tasks the worker runs at once, Busy those it
	// runs now.
	Slots int `json:"slots"`
	Busy  int `json:"busy"`
	// Kinds are the job kinds it runs.
	Kinds []string `json:"kinds"`
	// Done and Failed count its tasks since it started.
	Done    int64     `json:"tasks_done"`
	Failed  int64     `json:"tasks_failed"`
	Started time.Time `json:"started"`
	// Stopped is set by the last announcement of a worker that stopped.
	Stopped bool `json:"stopped,omitempty"`
	// Seen is when the server stored the announcement (its clock, not the
	// worker's); readers fill it.
	Seen time.Time `json:"last_seen"`
}

// HeartbeatEvery is how often a worker announces itself.
const HeartbeatEvery = 5 * time.Second

// Alive tells whether w announced itself within three heartbeats of now
// and has not stopped.
func (w Worker) Alive(now time.Time) bool {
	return !w.Stopped && now.Sub(w.Seen) < 3*HeartbeatEvery
}
