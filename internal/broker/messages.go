package broker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Tasks and results travel with their fields as headers and their payload
// or data as the message body, as it is: no encoding of a payload (which
// may be 250 KB of puzzles) inside another. A result whose data does not
// fit one message travels as several, its parts (see part).

// Header names of task and result messages.
const (
	hdrJob       = "Wopr-Job"
	hdrTask      = "Wopr-Task"
	hdrKind      = "Wopr-Kind"
	hdrEpoch     = "Wopr-Epoch"
	hdrWorker    = "Wopr-Worker"
	hdrFailed    = "Wopr-Failed"
	hdrCacheHits = "Wopr-Cache-Hits"
	hdrSeconds   = "Wopr-Seconds"
	hdrCheck     = "Wopr-Check"
	hdrAttempt   = "Wopr-Attempt"
	hdrPart      = "Wopr-Part"
	hdrParts     = "Wopr-Parts"
	hdrSize      = "Wopr-Size"
	hdrTry       = "Wopr-Try"
	hdrToken     = "Wopr-Token"
	hdrNotBy     = "Wopr-Not-By"
)

// ErrMalformed is returned for a task or result message that is not one.
var ErrMalformed = errors.New("malformed message")

// encodeTask builds the message of a task.
func encodeTask(t job.Task) *nats.Msg {
	m := nats.NewMsg(taskSubject(t.Job, t.ID))
	m.Header.Set(hdrJob, t.Job)
	m.Header.Set(hdrTask, t.ID)
	m.Header.Set(hdrKind, t.Kind)
	m.Header.Set(hdrEpoch, strconv.Itoa(t.Epoch))
	m.Header.Set(hdrCheck, t.Check)
	m.Header.Set(hdrTry, strconv.Itoa(t.Try))
	if t.Token != "" {
		m.Header.Set(hdrToken, t.Token)
	}
	if len(t.NotBy) > 0 {
		m.Header.Set(hdrNotBy, strings.Join(t.NotBy, ","))
	}
	m.Data = t.Payload
	return m
}

// decodeTask reads a task message.
func decodeTask(h nats.Header, data []byte) (job.Task, error) {
	t := job.Task{Job: h.Get(hdrJob), ID: h.Get(hdrTask), Kind: h.Get(hdrKind), Check: h.Get(hdrCheck), Payload: data}
	epoch, err := strconv.Atoi(h.Get(hdrEpoch))
	if err != nil || !tasks.ValidID(t.Job) || !tasks.ValidID(t.ID) || t.Kind == "" || t.Check == "" {
		return job.Task{}, fmt.Errorf("%w: task headers job %q task %q kind %q epoch %q check %q",
			ErrMalformed, t.Job, t.ID, t.Kind, h.Get(hdrEpoch), t.Check)
	}
	t.Epoch = epoch
	t.Try, _ = strconv.Atoi(h.Get(hdrTry))
	t.Token = h.Get(hdrToken)
	if v := h.Get(hdrNotBy); v != "" {
		t.NotBy = strings.Split(v, ",")
	}
	return t, nil
}

// encodeResult builds the message of a result.
func encodeResult(r job.Result) *nats.Msg {
	m := nats.NewMsg(resultSubject(r.Job, r.Worker))
	m.Header.Set(hdrJob, r.Job)
	m.Header.Set(hdrTask, r.Task)
	m.Header.Set(hdrWorker, r.Worker)
	m.Header.Set(hdrEpoch, strconv.Itoa(r.Epoch))
	m.Header.Set(hdrTry, strconv.Itoa(r.Try))
	if r.Token != "" {
		m.Header.Set(hdrToken, r.Token)
	}
	if r.Check != "" {
		m.Header.Set(hdrCheck, r.Check)
	}
	if r.Failed != "" {
		m.Header.Set(hdrFailed, r.Failed)
	}
	if r.CacheHits != 0 {
		m.Header.Set(hdrCacheHits, strconv.FormatInt(r.CacheHits, 10))
	}
	m.Header.Set(hdrSeconds, strconv.FormatFloat(r.Seconds, 'f', -1, 64))
	m.Data = r.Data
	return m
}

// decodeResult reads a result message that came on subject. A result with
// data must name the check of the task it was computed for; a failure may
// lack it (the task's own message could not be read). Its worker is the
// one its subject names (the server checks who may publish there), not
// what its headers say.
func decodeResult(subject string, h nats.Header, data []byte) (job.Result, error) {
	r := job.Result{Job: h.Get(hdrJob), Task: h.Get(hdrTask), Check: h.Get(hdrCheck), Worker: resultWorker(subject, h.Get(hdrJob)),
		Failed: h.Get(hdrFailed), Token: h.Get(hdrToken), Data: data}
	r.Epoch, _ = strconv.Atoi(h.Get(hdrEpoch))
	r.Try, _ = strconv.Atoi(h.Get(hdrTry))
	if !tasks.ValidID(r.Job) || !tasks.ValidID(r.Task) {
		return job.Result{}, fmt.Errorf("%w: result headers job %q task %q", ErrMalformed, r.Job, r.Task)
	}
	if r.Check == "" && r.Failed == "" {
		return job.Result{}, fmt.Errorf("%w: result of %s/%s without the check of its task", ErrMalformed, r.Job, r.Task)
	}
	if v := h.Get(hdrCacheHits); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return job.Result{}, fmt.Errorf("%w: cache hits %q", ErrMalformed, v)
		}
		r.CacheHits = n
	}
	r.Seconds, _ = strconv.ParseFloat(h.Get(hdrSeconds), 64)
	return r, nil
}

// part says which piece of a result's data a result message carries, when
// the data does not fit one message: piece index of count, in order, of
// size bytes in all, sent by one attempt at publishing the result (an id
// drawn for each call of Work.PublishResult, so that the parts of two runs
// of a task, which may differ, never mix). Each part carries the result's
// other fields too. The zero value (count 0): the message carries the
// whole result.
type part struct {
	attempt string
	index   int
	count   int
	size    int
}

// maxResultSize bounds the data of a result in parts, which the
// coordinator gathers in memory: a part that says more is refused before
// anything is kept.
const maxResultSize = 1 << 30

// encodePart builds the message of part p of result r, whose Data is the
// part's piece.
func encodePart(r job.Result, p part) *nats.Msg {
	m := encodeResult(r)
	m.Header.Set(hdrAttempt, p.attempt)
	m.Header.Set(hdrPart, strconv.Itoa(p.index))
	m.Header.Set(hdrParts, strconv.Itoa(p.count))
	m.Header.Set(hdrSize, strconv.Itoa(p.size))
	return m
}

// decodePart reads which part of a result a result message carries: the
// zero value for one that carries the whole result. A part names its
// attempt, its index among count parts (at least one), and the size of
// the whole, which they can hold and which its own data does not pass.
func decodePart(h nats.Header, data []byte) (part, error) {
	attempt, index, count, size := h.Get(hdrAttempt), h.Get(hdrPart), h.Get(hdrParts), h.Get(hdrSize)
	if attempt == "" && index == "" && count == "" && size == "" {
		return part{}, nil
	}
	p := part{attempt: attempt}
	var errIndex, errCount, errSize error
	p.index, errIndex = strconv.Atoi(index)
	p.count, errCount = strconv.Atoi(count)
	p.size, errSize = strconv.Atoi(size)
	if !tasks.ValidID(attempt) || errIndex != nil || errCount != nil || errSize != nil ||
		p.count < 1 || p.index < 0 || p.index >= p.count || p.size < 0 || p.size > maxResultSize ||
		p.count > max(p.size, 1) || len(data) > p.size {
		return part{}, fmt.Errorf("%w: part headers attempt %q part %q of %q, size %q, with %d bytes",
			ErrMalformed, attempt, index, count, size, len(data))
	}
	return p, nil
}
