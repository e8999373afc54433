package broker

import "testing"

// Subjects built for valid ids parse back to them; anything else is not a
// task subject.
func TestTaskSubjects(t *testing.T) {
	for _, ids := range [][2]string{{"20261201-101010-abcdef", "c007"}, {"j", "t"}, {"a_b-c", "p-1_2"}} {
		j, task, ok := parseTaskSubject(taskSubject(ids[0], ids[1]))
		if !ok || j != ids[0] || task != ids[1] {
			t.Errorf("%v: parsed %q %q %v", ids, j, task, ok)
		}
	}
	for _, s := range []string{"", "wopr.tasks.", "wopr.tasks.j", "wopr.tasks.j.t.u", "wopr.results.j", "wopr.tasks.j.>", "wopr.tasks..t", "x.tasks.j.t"} {
		if j, task, ok := parseTaskSubject(s); ok {
			t.Errorf("%q parsed as a task subject: %q %q", s, j, task)
		}
	}
}
