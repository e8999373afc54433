package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/tasks"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"

	_ "github.com/woprlabs/wopr/pkg/tasks/all"
)

// Clients of one cluster, as many analyze commands with --nats at once:
// eight runs of four jobs (each job asked for twice, so that a client
// follows a job another submitted), a Conn submitting and watching beside
// them, and the lists of jobs read meanwhile. Every run prints the exact
// report of its job. Run under -race, it watches the client's own code,
// which the end-to-end tests of test/ run in binaries built without it.
func TestConcurrentClientsOfACluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := embedded.Start(ctx, embedded.Options{Dir: t.TempDir(), Workers: 2, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	url := c.Server.ClientURL()

	// Complete games of each board, counted by a plain enumeration of
	// every move sequence apart from wopr (255,168 for tic-tac-toe).
	boards := []struct {
		rows, cols, k int
		games         uint64
	}{{3, 3, 3, 255168}, {2, 2, 2, 24}, {3, 3, 2, 5528}, {2, 3, 3, 720}}
	specs := make([]tasks.Spec, len(boards))
	for i, b := range boards {
		p := mnktasks.DefaultCountParams()
		p.Rows, p.Cols, p.K = b.rows, b.cols, b.k
		if specs[i], err = p.Spec(); err != nil {
			t.Fatal(err)
		}
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2*len(specs)+2)
	for i := range 2 * len(specs) {
		b, spec := boards[i%len(boards)], specs[i%len(specs)]
		wg.Go(func() {
			var out bytes.Buffer
			o := client.Options{NATS: url, JSON: true, Quiet: true, Stdout: &out, Stderr: io.Discard}
			if err := client.Run(ctx, o, spec); err != nil {
				errs <- fmt.Errorf("run %d (%dx%d k=%d): %v", i, b.rows, b.cols, b.k, err)
				return
			}
			var rep struct {
				Games    uint64 `json:"games"`
				Complete bool   `json:"complete"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Games != b.games || !rep.Complete {
				errs <- fmt.Errorf("run %d (%dx%d k=%d): games %d, complete %v (%v) in %s; want %d, complete",
					i, b.rows, b.cols, b.k, rep.Games, rep.Complete, err, out.Bytes(), b.games)
			}
		})
	}
	conn, err := client.Connect(ctx, client.Options{NATS: url})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	wg.Go(func() {
		records, err := conn.Watch(ctx)
		if err != nil {
			errs <- err
			return
		}
		j, err := conn.Submit(ctx, specs[0])
		if err != nil {
			errs <- fmt.Errorf("conn submit: %v", err)
			return
		}
		for r := range records {
			if r.ID == j.ID && r.State.Final() {
				return
			}
		}
		errs <- fmt.Errorf("conn: job %s did not end before %v", j.ID, ctx.Err())
	})
	wg.Go(func() {
		for range 20 {
			if _, err := conn.Jobs(ctx); err != nil {
				errs <- fmt.Errorf("conn jobs: %v", err)
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
