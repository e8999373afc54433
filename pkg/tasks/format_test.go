package tasks

import "testing"

func TestThousands(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 255168: "255,168",
		15038733958272: "15,038,733,958,272", 18446744073709551615: "18,446,744,073,709,551,615"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 tasks"}, {1, "1 task"}, {2, "2 tasks"}} {
		if got := Count(c.n, "task"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
