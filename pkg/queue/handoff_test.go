package queue

import "testing"

func TestHandoffTakeAndEvict(t *testing.T) {
	h := newHandoff(10)
	h.put("a", []byte("1234"))
	h.put("b", []byte("5678"))
	if d, ok := h.take("a"); !ok || string(d) != "1234" {
		t.Fatalf("take a: %q %v", d, ok)
	}
	if _, ok := h.take("a"); ok {
		t.Fatal("a taken twice")
	}
	h.put("c", []byte("abcd"))
	h.put("d", []byte("efgh")) // 12 bytes: b, the oldest, goes
	if _, ok := h.take("b"); ok {
		t.Error("b kept beyond the limit")
	}
	h.put("big", make([]byte, 11)) // over the limit on its own: not kept
	if _, ok := h.take("big"); ok {
		t.Error("an object over the limit was kept")
	}
	for _, n := range []string{"c", "d"} {
		if _, ok := h.take(n); !ok {
			t.Errorf("%s lost", n)
		}
	}
	if h.size != 0 || len(h.order) != 0 || len(h.m) != 0 {
		t.Errorf("not empty after taking all: %+v", h)
	}
	var none *handoff // a Broker without handoff
	none.put("x", []byte("x"))
	if _, ok := none.take("x"); ok {
		t.Error("nil handoff returned something")
	}
}
