package coordinator

import (
	"encoding/json"
	"errors"
)

// storedResult is a merged task result in the coordinator's store: a JSON
// line of metadata, then, for a failed task, nothing, or for another the
// key of its result in the cache.
type storedResult struct {
	Task      string `json:"task"`
	Check     string `json:"check,omitempty"` // the task's job.PayloadCheck
	Ref       string `json:"ref,omitempty"`   // the key of its result in the cache
	Worker    string `json:"worker,omitempty"`
	Failed    string `json:"failed,omitempty"`
	CacheHits int64  `json:"cache_hits,omitempty"`
	Cached    bool   `json:"cached,omitempty"`
}

func (s storedResult) encode() ([]byte, error) { return json.Marshal(s) }

func decodeStored(v []byte) (storedResult, error) {
	var s storedResult
	err := json.Unmarshal(v, &s)
	if err == nil && s.Ref == "" && s.Failed == "" {
		err = errors.New("neither a result nor a failure")
	}
	return s, err
}

func resultPrefix(jobID string) []byte { return []byte("result/" + jobID + "/") }

func resultKey(jobID, task string) []byte { return []byte("result/" + jobID + "/" + task) }

// volatileKey keeps the result of a volatile task (tasks.Task.Volatile)
// until its job is reported.
func volatileKey(jobID, task string) []byte { return []byte("volatile/" + jobID + "/" + task) }

func volatilePrefix(jobID string) []byte { return []byte("volatile/" + jobID + "/") }

// publishedKey holds how far the coordinator has gone through a job's
// tasks, publishing them (see publishUnfinished), until the job is
// reported.
func publishedKey(jobID string) []byte { return []byte("published/" + jobID) }
