package tasks

import (
	"sync"
	"testing"
)

// The runners of a worker's slots, asking at once, get the one value made
// for the first of them; another Shared has a value of its own, and a
// runner without a process has a value of its own.
func TestSharedMakesOneValuePerProcess(t *testing.T) {
	var made sync.Map
	s := NewShared(func() *int {
		v := new(int)
		made.Store(v, true)
		return v
	})
	env := Env{Process: &Process{}}
	got := make([]*int, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = s.Get(env) })
	}
	wg.Wait()
	n := 0
	made.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d values made for one process, want 1", n)
	}
	for i, v := range got {
		if v != got[0] {
			t.Errorf("runner %d got %p, runner 0 %p: want the same value", i, v, got[0])
		}
	}
	other := NewShared(func() string { return "x" })
	if v := other.Get(env); v != "x" {
		t.Errorf("another Shared: %q, want its own value", v)
	}
	if v := s.Get(Env{}); v == got[0] {
		t.Error("a runner without a process got the process's value, want its own")
	}
	if v := s.Get(Env{Process: &Process{}}); v == got[0] {
		t.Error("another process got this process's value, want its own")
	}
}
