package broker

import (
	"strings"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// Subjects: every subject wopr uses is built or parsed here, and nowhere
// else. Job and task ids are single tokens (tasks.ValidID).
const (
	tasksPrefix       = "wopr.tasks."
	resultsPrefix     = "wopr.results."
	allTasksSubject   = tasksPrefix + ">"
	allResultsSubject = resultsPrefix + ">"

	maxDeliveriesSubject = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + tasksStream + "." + workersConsumer
)

// jobKeySubject is the subject of a job's record in the jobs bucket (the
// key's subject in the bucket's stream).
func jobKeySubject(jobID string) string { return "$KV." + jobsBucket + "." + jobID }

// jobsMsgGetSubject is JetStream's API for a message of the jobs bucket's
// stream, answered by the stream's leader (its direct get, which the
// bucket's Get uses, is answered by any replica).
const jobsMsgGetSubject = "$JS.API.STREAM.MSG.GET.KV_" + jobsBucket

// taskSubject is the subject of one task.
func taskSubject(jobID, task string) string { return tasksPrefix + jobID + "." + task }

// jobTasksSubject matches every task of a job.
func jobTasksSubject(jobID string) string { return tasksPrefix + jobID + ".>" }

// resultSubject is the subject worker publishes a job's results on:
// wopr.results.<job>.<worker>. A cluster's permissions give each worker's
// credentials its own name's subjects only ("wopr.results.*.<worker>"),
// so that a result says who sent it in a way its sender cannot forge.
func resultSubject(jobID, worker string) string { return resultsPrefix + jobID + "." + worker }

// resultWorker returns the worker that the subject of a result of job
// jobID names, or "" if it names none.
func resultWorker(subject, jobID string) string {
	w, ok := strings.CutPrefix(subject, resultsPrefix+jobID+".")
	if !ok || !tasks.ValidID(w) {
		return ""
	}
	return w
}

// parseTaskSubject returns the job and task ids of a task subject; ok is
// false for any other subject.
func parseTaskSubject(subject string) (jobID, task string, ok bool) {
	rest, ok := strings.CutPrefix(subject, tasksPrefix)
	if !ok {
		return "", "", false
	}
	jobID, task, ok = strings.Cut(rest, ".")
	if !ok || !tasks.ValidID(jobID) || !tasks.ValidID(task) {
		return "", "", false
	}
	return jobID, task, true
}
