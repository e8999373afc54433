package queue

import "testing"

func TestHandoffTakeAndEvict(t *testing.T) {
	h := newHandoff(10)
	h.put("input/a", []byte("1234"))
	h.put("input/b", []byte("5678"))
	if d, ok := h.take("input/a"); !ok || string(d) != "1234" {
		t.Fatalf("take a: %q %v", d, ok)
	}
	if _, ok := h.take("input/a"); ok {
		t.Fatal("a taken twice")
	}
	h.put("input/c", []byte("abcd"))
	if !h.put("output/j/out", []byte("efgh")) { // 12 bytes: b, the oldest input, goes
		t.Fatal("an output that fits was refused")
	}
	if _, ok := h.take("input/b"); ok {
		t.Error("b kept beyond the limit")
	}
	if h.put("output/j/big", make([]byte, 7)) { // does not fit beside the first output
		t.Error("an output over the limit was kept")
	}
	if _, ok := h.take("input/c"); ok {
		t.Error("c kept: inputs make room for outputs")
	}
	if d, ok := h.take("output/j/out"); !ok || string(d) != "efgh" {
		t.Errorf("output lost: %q %v", d, ok)
	}
	if h.size != 0 || len(h.order) != 0 || len(h.m) != 0 {
		t.Errorf("not empty after taking all: %+v", h)
	}
	var none *handoff // a Broker without handoff
	if none.put("x", []byte("x")) {
		t.Error("nil handoff kept something")
	}
	if _, ok := none.take("x"); ok {
		t.Error("nil handoff returned something")
	}
}
