package job

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strconv"
	"time"
)

// Task is a task of a job as the coordinator sends it to the workers: one
// of the tasks a kind's plan made (tasks.Task), with what the runtime needs
// to route it and to tell its results apart.
type Task struct {
	Job   string
	ID    string
	Kind  string
	Epoch int // the coordinator's life of the job that published it
	// Check is PayloadCheck(Payload), echoed in the task's result, so that
	// a result is merged only into the task it was computed for.
	Check string
	// Try counts the coordinator's publications of the task within its
	// epoch: a result it refused has the task published again.
	Try int
	// Token proves that a result was computed by a worker that was given
	// this task, at this epoch and try: the coordinator made it with a key
	// no worker holds (see TaskToken), and the result echoes it.
	Token string
	// NotBy names the workers whose results for this copy of the task the
	// coordinator refuses (a copy that verifies their result): a worker
	// named here hands it back.
	NotBy   []string
	Payload []byte
}

// Result is a worker's answer to a task: its output, or the reason it can
// never succeed.
type Result struct {
	Job   string
	Task  string
	Check string // the task's Check
	// Worker is the worker that sent the result. On a cluster the
	// coordinator takes it from the subject the result came on, which the
	// server lets each worker's credentials publish for its own name only.
	Worker string
	// Epoch, Try and Token are the task's, echoed.
	Epoch, Try int
	Token      string
	Data       []byte
	// Failed is why the task can never succeed ("": it succeeded).
	Failed    string
	CacheHits int64
	Seconds   float64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// PayloadCheck is a short checksum of a task's payload: CRC-32C, which the
// CPU computes (a few ms for a whole corpus's payloads), and the length. A
// coordinator re-planning a job after a restart, by a build whose plan
// differs for the same parameters, tells by it the results of the old
// tasks from those of the new ones.
func PayloadCheck(payload []byte) string {
	return fmt.Sprintf("%08x-%d", crc32.Checksum(payload, castagnoli), len(payload))
}

// TaskToken is the token of a task's publication (Task.Token): an
// HMAC-SHA256 under key of what names it, so that only a worker that was
// given the task can send a result the coordinator accepts for it.
func TaskToken(key []byte, job, task string, epoch, try int, check string) string {
	m := hmac.New(sha256.New, key)
	for _, f := range []string{job, task, strconv.Itoa(epoch), strconv.Itoa(try), check} {
		m.Write([]byte(f))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// Delivery is one delivery of a task to a worker. The worker answers it
// once: Ack after its result is published, HandBack or Retry to have it
// delivered again, or Terminate for a task that can never succeed; while
// it runs, Heartbeat every AckWait/4 keeps it from going to another worker.
type Delivery interface {
	// Task is the task delivered. For a message that is not a task, the
	// error says why, and the Task has the job and task ids of the
	// message's subject (empty if it has none).
	Task() (Task, error)
	// Delivered counts the deliveries of the task, this one included.
	Delivered() uint64
	Heartbeat() error
	Ack(ctx context.Context) error
	HandBack() error
	Retry(after time.Duration) error
	Terminate(reason string) error
}
