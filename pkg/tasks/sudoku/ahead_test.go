package sudoku

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// countedObjects counts the reads of each object.
type countedObjects struct {
	memObjects
	mu    sync.Mutex
	reads map[string]int
}

func (c *countedObjects) Get(ctx context.Context, name string) ([]byte, error) {
	c.mu.Lock()
	c.reads[name]++
	c.mu.Unlock()
	return c.memObjects.Get(ctx, name)
}

// The runners of one process, taking the tasks in order between them, read
// each piece once, most of them ahead of their task, and return what
// runners without reading ahead return. When the next tasks go elsewhere
// (a process that takes every third task, as on a cluster of three), the
// process soon stops reading ahead: it reads few more pieces than its
// own. A worker of a cluster (not Alone) reads its own pieces only.
func TestReadAhead(t *testing.T) {
	// Puzzles relabelled at random, so that the pieces differ.
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	rng := rand.New(rand.NewPCG(1, 2))
	var corpus strings.Builder
	for range 3000 {
		to := rng.Perm(9)
		corpus.WriteString(strings.Map(func(r rune) rune {
			if r == '.' {
				return r
			}
			return rune('1' + to[r-'1'])
		}, pz) + "\n")
	}
	objs := memObjects{"in": []byte(corpus.String())}
	raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: 10, Out: true})
	for _, kind := range []tasks.Kind{Solve{}, Rate{}} {
		plan, err := kind.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs})
		if err != nil {
			t.Fatal(err)
		}
		list := plan.Tasks()
		alone := kind.NewRunner(tasks.Env{Objects: objs})
		for _, tc := range []struct {
			stride int
			alone  bool
		}{{1, true}, {3, true}, {3, false}} {
			stride := tc.stride
			counted := &countedObjects{memObjects: objs, reads: map[string]int{}}
			env := tasks.Env{Objects: counted, Process: &tasks.Process{}, Alone: tc.alone}
			slots := []tasks.Runner{kind.NewRunner(env), kind.NewRunner(env)}
			mine := 0
			for i := 0; i < len(list); i += stride {
				got, err := slots[mine%2].Run(context.Background(), list[i].Payload)
				if err != nil {
					t.Fatal(err)
				}
				want, err := alone.Run(context.Background(), list[i].Payload)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Data, want.Data) {
					t.Fatalf("%s, task %s: the result differs from a runner's that reads no piece ahead", kind.Name(), list[i].ID)
				}
				mine++
			}
			reads, twice := 0, 0
			for _, n := range counted.reads {
				reads += n
				if n > 1 {
					twice++
				}
			}
			a := processReadAhead(env)
			switch {
			case !tc.alone && (reads != mine || twice > 0 || a != nil):
				t.Errorf("%s, a cluster's worker: %d reads for %d tasks (%d read twice), want one a task", kind.Name(), reads, mine, twice)
			case stride == 1 && (reads != len(list) || twice > 0 || a.taken < len(list)-2):
				t.Errorf("%s: %d reads of the %d pieces (%d read twice), %d taken ahead; want each read once, all but the first taken ahead",
					kind.Name(), reads, len(list), twice, a.taken)
			case stride == 3 && reads > mine+3*maxAhead:
				t.Errorf("%s, every third task: %d reads for %d tasks, want at most %d", kind.Name(), reads, mine, mine+3*maxAhead)
			}
		}
	}
}
