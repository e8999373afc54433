package queue

import "testing"

// Inputs are kept for any number of reads, outputs for one; nothing is held
// beyond the limit.
func TestHandoffKeepsInputsTakesOutputs(t *testing.T) {
	h := newHandoff(10)
	for range 2 {
		if !h.keep("input/a", []byte("1234")) {
			t.Fatal("an input that fits was refused")
		}
	}
	for range 2 {
		if d, ok := h.take("input/a"); !ok || string(d) != "1234" {
			t.Fatalf("take a: %q %v", d, ok)
		}
	}
	if h.keep("input/b", make([]byte, 7)) {
		t.Error("an input over the limit was kept")
	}
	if !h.put("output/j/out", []byte("efgh")) {
		t.Fatal("an output that fits was refused")
	}
	if h.put("output/j/big", make([]byte, 3)) { // 11 bytes with a and out
		t.Error("an output over the limit was kept")
	}
	if d, ok := h.take("output/j/out"); !ok || string(d) != "efgh" {
		t.Errorf("output lost: %q %v", d, ok)
	}
	if _, ok := h.take("output/j/out"); ok {
		t.Error("an output taken twice")
	}
	if h.size != 4 || len(h.m) != 0 || len(h.inputs) != 1 {
		t.Errorf("after taking the output: %+v", h)
	}
	var none *handoff // a Broker without handoff
	if none.put("x", []byte("x")) || none.keep("x", []byte("x")) {
		t.Error("nil handoff kept something")
	}
	if _, ok := none.take("x"); ok {
		t.Error("nil handoff returned something")
	}
}
