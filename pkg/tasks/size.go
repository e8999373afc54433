package tasks

import "encoding/json"

// MaxTasks is the most tasks a job may have. A coordinator keeps some
// state per task of a running job (an id, a check, a done flag), so a job
// of a hundred million tasks would cost gigabytes before its first task
// ran; a million tasks is more than any kind needs (a task is meant to
// take seconds, not microseconds). The submit side refuses a job over it
// (CheckSpec); a coordinator may be given another limit (its --max-tasks).
const MaxTasks = 1_000_000

// Sizer is a Kind that tells, from a job's parameters alone, how many
// tasks the job has: cheaply, without planning and without reading its
// inputs, so that a job too big is refused before it is planned. Every
// kind whose task count follows from its parameters is one; a kind whose
// count follows from its inputs (a corpus) is refused by its submit side,
// which reads them, and its plan stops at PlanEnv.MaxTasks.
type Sizer interface {
	// Size returns the job's number of tasks, or an upper bound, and the
	// parameters that set it. An error wraps ErrInvalid: the parameters
	// are wrong (Plan would say so too).
	Size(params json.RawMessage) (Size, error)
}

// Size is how many tasks a job's parameters give.
type Size struct {
	// Tasks is the number of tasks, or with Bound an upper bound.
	Tasks int
	Bound bool
	// By names the parameters that set it, as a user gives them
	// ("--games 100000000 --games-per-task 1"), for the refusal.
	By string
}

// CheckSize refuses a job of kind k whose parameters give more than limit
// tasks (as k's Size tells; a kind that is no Sizer passes) with an error
// wrapping ErrInvalid that names the parameters and the limit.
func CheckSize(k Kind, params json.RawMessage, limit int) error {
	s, ok := k.(Sizer)
	if !ok {
		return nil
	}
	size, err := s.Size(params)
	if err != nil {
		return err
	}
	if size.Tasks > limit {
		if size.Bound {
			return Invalid("%s: up to %s tasks, more than the %s a job may have", size.By, Thousands(uint64(size.Tasks)), Thousands(uint64(max(limit, 0))))
		}
		return TooManyTasks(size.By, size.Tasks, limit)
	}
	return nil
}

// CheckSpec is CheckSize of the kind that spec names, with the limit of
// a job, MaxTasks, as the submit side checks a job. An unknown kind
// passes: the coordinator names it.
func CheckSpec(spec Spec) error {
	k, ok := Lookup(spec.Kind)
	if !ok {
		return nil
	}
	return CheckSize(k, spec.Params, MaxTasks)
}

// TooManyTasks is the error of a job whose parameters (by) give n tasks,
// or at least n, more than limit. It wraps ErrInvalid.
func TooManyTasks(by string, n, limit int) error {
	return Invalid("%s: %s tasks, more than the %s a job may have", by, Thousands(uint64(max(n, 0))), Thousands(uint64(max(limit, 0))))
}
