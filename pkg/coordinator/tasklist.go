package coordinator

import "github.com/woprlabs/wopr/pkg/tasks"

// taskList is a job's tasks as the coordinator reads them: the slice of a
// plan's Tasks, or the tasks of a tasks.Indexed plan, made when asked for.
type taskList interface {
	Len() int
	Task(i int) tasks.Task
	Index(id string) (int, bool)
	// merged tells that task i is merged: a list that holds its payload
	// drops it (a big job's payloads are as big as its inputs).
	merged(i int)
	// keeps tells whether the list holds its tasks, so that what is made
	// from a payload (its check, its cache key) is worth keeping too.
	keeps() bool
}

// listOf returns the task list of plan.
func listOf(plan tasks.Plan) taskList {
	if ix, ok := plan.(tasks.Indexed); ok {
		return indexed{ix}
	}
	list := plan.Tasks()
	index := make(map[string]int, len(list))
	for i, t := range list {
		index[t.ID] = i
	}
	return &slice{list: list, index: index}
}

// slice is the tasks of a plan that holds them.
type slice struct {
	list  []tasks.Task
	index map[string]int
}

func (s *slice) Len() int                    { return len(s.list) }
func (s *slice) Task(i int) tasks.Task       { return s.list[i] }
func (s *slice) Index(id string) (int, bool) { i, ok := s.index[id]; return i, ok }
func (s *slice) merged(i int)                { s.list[i].Payload = nil }
func (s *slice) keeps() bool                 { return true }

// indexed is the tasks of a tasks.Indexed plan.
type indexed struct{ tasks.Indexed }

func (indexed) merged(int)  {}
func (indexed) keeps() bool { return false }
