package mnk

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// planOne plans a kind of one task (mnk.search, mnk.minimax): its
// parameters, checked by validate, are the task's payload, and the task's
// result is the report. volatile tells whether the task's result depends on
// the machine (tasks.Task.Volatile).
func planOne[P any](raw json.RawMessage, kind, id string, validate func(P) (*mnk.Game, mnk.Position, error), volatile func(P) bool, report func() tasks.Report) (tasks.Plan, error) {
	var p P
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("%s parameters: %v", kind, err)
	}
	if _, _, err := validate(p); err != nil {
		return nil, err
	}
	payload, _ := json.Marshal(p)
	task := tasks.Task{ID: id, Payload: payload, Volatile: volatile != nil && volatile(p)}
	return &singlePlan{Results: make(tasks.Results), task: task, report: report}, nil
}

// singlePlan is a job of one task whose result is the report itself.
type singlePlan struct {
	tasks.Results
	task   tasks.Task
	report func() tasks.Report
}

func (sp *singlePlan) Tasks() []tasks.Task { return []tasks.Task{sp.task} }

// Report is the task's result; a report whose task failed has only its head
// (its Board is empty), and its text says so.
func (sp *singlePlan) Report(context.Context, tasks.Summary) (tasks.Report, error) {
	rep := sp.report()
	if data, ok := sp.Result(sp.task.ID); ok {
		if err := json.Unmarshal(data, rep); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", sp.task.ID, err)
		}
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

// failedText is the text of a report whose one task (the search, the
// minimax) failed; the runtime adds why.
func failedText(what string) string { return "the " + what + " failed\n" }
