package queue

import (
	"slices"
	"strings"
	"sync"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// handoff passes object contents between the parts of one process that
// share a Broker (the embedded default: the client and the coordinator),
// so that an object written by one part and read by another does not make
// a round trip through the object store: an input that the client uploads
// and the coordinator plans, an output that the coordinator writes and the
// client downloads. Inputs still go to the object store too (a resumed job
// reads its input from there); outputs, read once by the client of the same
// process, stay in memory only, unless they do not fit. An entry is taken
// by its first read; at most max bytes are held, the oldest input dropped
// first.
type handoff struct {
	mu    sync.Mutex
	m     map[string][]byte
	order []string // names of inputs, oldest first
	size  int
	max   int // bytes held at most
}

const handoffMax = 2 << 30

// EnableHandoff makes this Broker hand objects over in memory (see
// handoff). Only for a Broker whose writes are read by the same process
// and whose outputs are read by a client in it: the embedded default.
func (b *Broker) EnableHandoff() { b.handoff = newHandoff(handoffMax) }

func newHandoff(max int) *handoff { return &handoff{m: map[string][]byte{}, max: max} }

// isOutput tells the objects that the handoff keeps in memory only.
func isOutput(name string) bool { return strings.HasPrefix(name, tasks.OutputPrefix) }

// put offers data (which must not change afterwards) under name and tells
// whether it is held. An output is held only if it fits beside the outputs
// already held; inputs make room for it, oldest first.
func (h *handoff) put(name string, data []byte) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(name)
	for h.size+len(data) > h.max && len(h.order) > 0 {
		h.drop(h.order[0])
	}
	if h.size+len(data) > h.max {
		return false
	}
	h.m[name] = data
	h.size += len(data)
	if !isOutput(name) {
		h.order = append(h.order, name)
	}
	return true
}

// take returns and forgets what was offered under name.
func (h *handoff) take(name string) ([]byte, bool) {
	if h == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	data, ok := h.m[name]
	h.drop(name)
	return data, ok
}

// drop forgets name; h.mu is held.
func (h *handoff) drop(name string) {
	data, ok := h.m[name]
	if !ok {
		return
	}
	delete(h.m, name)
	h.size -= len(data)
	if i := slices.Index(h.order, name); i >= 0 {
		h.order = slices.Delete(h.order, i, i+1)
	}
}
