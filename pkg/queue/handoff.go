package queue

import (
	"strings"
	"sync"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// handoff passes object contents between the parts of one process that
// share a Broker (the embedded default: the client and the coordinator) in
// memory, so that they make no round trip through the object store:
//   - an input that the client hands over (Upload) is kept until
//     the process ends and is not uploaded at all: only this process reads
//     it (its coordinator plans the job; a job interrupted and resumed is
//     resumed by a later client, which hands the input over again). An
//     input that does not fit goes to the object store as on a cluster.
//   - an output, written by the coordinator and read once by the client of
//     the same process, is held until that read, unless it does not fit:
//     then it goes to the object store.
//
// At most max bytes are held in all. A handoff shared with the workers of
// the process (ShareHandoff) lends them the inputs too (tasks.Shared).
type handoff struct {
	mu     sync.Mutex
	inputs map[string][]byte // kept: read any number of times
	m      map[string][]byte // outputs: taken by their first read
	size   int
	max    int
	shared bool // with the workers of the process
}

const handoffMax = 2 << 30

// EnableHandoff makes this Broker hand objects over in memory (see
// handoff). Only for a Broker whose writes are read by the same process
// and whose outputs are read by a client in it: the embedded default.
func (b *Broker) EnableHandoff() { b.handoff = newHandoff(handoffMax) }

// ShareHandoff lets this Broker, a worker's, read the inputs handed over
// to from (which has EnableHandoff) in memory, and tells the plans of
// from's coordinator that it does (tasks.Shared): their tasks may then
// name pieces of those inputs instead of carrying them. Only for the
// workers of a cluster that no other worker can join (an embedded one that
// does not listen) and whose work queue holds no task of an earlier
// process (PurgeTasks).
func (b *Broker) ShareHandoff(from *Broker) {
	from.handoff.mu.Lock()
	from.handoff.shared = true
	from.handoff.mu.Unlock()
	b.handoff = from.handoff
}

// held tells whether the input name is held and lent to the workers.
func (h *handoff) held(name string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.inputs[name]
	return ok && h.shared
}

func newHandoff(max int) *handoff {
	return &handoff{inputs: map[string][]byte{}, m: map[string][]byte{}, max: max}
}

// isOutput tells the objects that the handoff takes once.
func isOutput(name string) bool { return strings.HasPrefix(name, tasks.OutputPrefix) }

// keep holds the input data (which must not change afterwards) under name
// until the process ends and tells whether it is held: false if it does not
// fit.
func (h *handoff) keep(name string, data []byte) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.inputs[name]; ok {
		return true
	}
	if h.size+len(data) > h.max {
		return false
	}
	h.inputs[name] = data
	h.size += len(data)
	return true
}

// put offers an output (which must not change afterwards) under name, for
// one read, and tells whether it is held: false if it does not fit.
func (h *handoff) put(name string, data []byte) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(name)
	if h.size+len(data) > h.max {
		return false
	}
	h.m[name] = data
	h.size += len(data)
	return true
}

// take returns what was handed over under name: an input stays, an output
// is forgotten.
func (h *handoff) take(name string) ([]byte, bool) {
	if h == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if data, ok := h.inputs[name]; ok {
		return data, true
	}
	data, ok := h.m[name]
	h.drop(name)
	return data, ok
}

// drop forgets the output name; h.mu is held.
func (h *handoff) drop(name string) {
	if data, ok := h.m[name]; ok {
		delete(h.m, name)
		h.size -= len(data)
	}
}
