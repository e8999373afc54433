package queue

import "sync"

// handoff passes object contents between the parts of one process that
// share a Broker (the embedded default: the client, the coordinator), so
// that an object written by one part and read by another is not read back
// from the object store: an input that the client uploads and the
// coordinator plans, an output that the coordinator writes and the client
// downloads. The object store still gets every object (a resumed job reads
// its input from there). An entry is taken by its first read; at most
// handoffMax bytes are held, the oldest dropped first.
type handoff struct {
	mu    sync.Mutex
	m     map[string][]byte
	order []string
	size  int
	max   int // bytes held at most
}

const handoffMax = 2 << 30

// EnableHandoff makes reads of this Broker's objects take what the same
// Broker wrote, in memory (see handoff). Only for a Broker whose writes are
// read by the same process: the embedded default.
func (b *Broker) EnableHandoff() { b.handoff = newHandoff(handoffMax) }

func newHandoff(max int) *handoff { return &handoff{m: map[string][]byte{}, max: max} }

// put offers data (which must not change afterwards) under name.
func (h *handoff) put(name string, data []byte) {
	if h == nil || len(data) > h.max {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.m[name]; ok {
		h.size -= len(old)
	} else {
		h.order = append(h.order, name)
	}
	h.m[name] = data
	h.size += len(data)
	for h.size > h.max && len(h.order) > 0 {
		oldest := h.order[0]
		h.order = h.order[1:]
		h.size -= len(h.m[oldest])
		delete(h.m, oldest)
	}
}

// take returns and forgets what was offered under name.
func (h *handoff) take(name string) ([]byte, bool) {
	if h == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	data, ok := h.m[name]
	if !ok {
		return nil, false
	}
	delete(h.m, name)
	h.size -= len(data)
	for i, n := range h.order {
		if n == name {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
	return data, true
}
