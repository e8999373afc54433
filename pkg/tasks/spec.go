package tasks

import (
	"encoding/json"
	"regexp"
)

// Spec is a job as a user submits it: the name of its kind and the
// parameters that the kind's Plan reads.
type Spec struct {
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params"`
	// Verify is the share of tasks (0 to 1) that a cluster's coordinator
	// has computed again by a second worker, merging a result only when
	// the two agree (docs/operations.md, "Threat model").
	Verify float64 `json:"verify,omitempty"`
}

// Same reports whether two specs ask for the same job: the same kind and
// parameters that are equal as JSON values (key order and spacing aside).
func (s Spec) Same(o Spec) bool {
	if s.Kind != o.Kind {
		return false
	}
	var x, y any
	if json.Unmarshal(s.Params, &x) != nil || json.Unmarshal(o.Params, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// Failure is a task that could never succeed, with the reason.
type Failure struct {
	Task   string `json:"task"`
	Reason string `json:"reason"`
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidID reports whether s may be a job or task id: 1 to 64 letters,
// digits, '-' and '_' (ids become subject tokens and keys).
func ValidID(s string) bool { return idRE.MatchString(s) }
