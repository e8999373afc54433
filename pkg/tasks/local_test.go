package tasks

import (
	"sync"
	"testing"
)

// The runners of a worker's slots, asking at once, get the one value made
// by the first of them.
func TestLocalMakesOneValuePerKey(t *testing.T) {
	var l Local
	var made sync.Map
	got := make([]any, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			got[i] = l.Get("k", func() any {
				v := new(int)
				made.Store(v, true)
				return v
			})
		})
	}
	wg.Wait()
	n := 0
	made.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d values made for one key, want 1", n)
	}
	for i, v := range got {
		if v != got[0] {
			t.Errorf("runner %d got %p, runner 0 %p: want the same value", i, v, got[0])
		}
	}
	if v := l.Get("other", func() any { return "x" }); v != "x" {
		t.Errorf("another key: %v, want its own value", v)
	}
}
