package mnkjobs

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// planOne plans a kind of one task (mnk.search, mnk.minimax): its
// parameters, checked by validate, are the task's payload, and the task's
// result is the report.
func planOne[P any](raw json.RawMessage, kind, id string, validate func(P) (*mnk.Game, mnk.Position, error), report func() tasks.Report) (tasks.Plan, error) {
	var p P
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("%s parameters: %v", kind, err)
	}
	if _, _, err := validate(p); err != nil {
		return nil, err
	}
	payload, _ := json.Marshal(p)
	return singlePlan{task: tasks.Task{ID: id, Payload: payload}, report: report}, nil
}

// singlePlan is a job of one task whose result is the report itself.
type singlePlan struct {
	task   tasks.Task
	report func() tasks.Report
}

func (sp singlePlan) Tasks() []tasks.Task { return []tasks.Task{sp.task} }

func (sp singlePlan) Report(results func(id string) ([]byte, bool), sum tasks.Summary) (tasks.Report, error) {
	rep := sp.report()
	if data, ok := results(sp.task.ID); ok {
		if err := json.Unmarshal(data, rep); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", sp.task.ID, err)
		}
	}
	if r, ok := rep.(interface{ finish(tasks.Summary) }); ok {
		r.finish(sum)
	}
	return rep, nil
}

// positionHead starts the report of a one-task kind: the game and the
// position it was given.
type positionHead struct {
	Board    string `json:"board"`
	Rows     int    `json:"rows"`
	Cols     int    `json:"cols"`
	K        int    `json:"k"`
	Position string `json:"position"`
	ToMove   string `json:"to_move"`
}

func headOf(g *mnk.Game, pos mnk.Position) positionHead {
	return newHead(g.Rows, g.Cols, g.K, g.String(pos), pos.XToMove())
}

// newHead is the head of a report on the position written as position of
// a rows x cols board with k in a row.
func newHead(rows, cols, k int, position string, xToMove bool) positionHead {
	h := positionHead{Board: fmt.Sprintf("%dx%d", rows, cols), Rows: rows, Cols: cols, K: k, Position: position, ToMove: "X"}
	if !xToMove {
		h.ToMove = "O"
	}
	return h
}

// oneTask ends the report of a one-task kind: how its task went.
type oneTask struct {
	FailedTasks    int             `json:"failed_tasks"`
	Failures       []tasks.Failure `json:"failures,omitempty"`
	ElapsedSeconds float64         `json:"elapsed_seconds"`
}

// finish takes the job's summary and tells whether the task succeeded.
func (o *oneTask) finish(sum tasks.Summary) bool {
	o.FailedTasks, o.Failures, o.ElapsedSeconds = len(sum.Failures), sum.Failures, sum.Elapsed.Seconds()
	return o.FailedTasks == 0
}

// incomplete is the text of a report whose task (the search, the minimax)
// failed.
func (o *oneTask) incomplete(what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INCOMPLETE: the %s failed\n", what)
	for _, f := range o.Failures {
		fmt.Fprintf(&b, "  task %s: %s\n", f.Task, f.Reason)
	}
	return b.String()
}
