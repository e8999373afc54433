// Command worker pulls wopr tasks from a NATS JetStream cluster, runs them
// and reports their results, caching results in a Badger store on disk.
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/cmd/internal/collector"
	"github.com/woprlabs/wopr/cmd/internal/daemon"
	"github.com/woprlabs/wopr/cmd/internal/natsflags"
	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/service"
	"github.com/woprlabs/wopr/pkg/tasks"
	_ "github.com/woprlabs/wopr/pkg/tasks/all"
	"github.com/woprlabs/wopr/pkg/worker"
)

func main() {
	collector.Tune()
	host, _ := os.Hostname()
	app := daemon.App("worker", "run wopr tasks from a NATS JetStream cluster", "`DIR` of the worker's Badger cache",
		&cli.IntFlag{Name: "concurrency", Aliases: []string{"c"}, Usage: "`N` task slots", Value: runtime.NumCPU(), DefaultText: "one per CPU"},
		&cli.StringFlag{Name: "name", Usage: "worker `NAME` in results and logs: 1 to 64 letters, digits, '-' and '_'; " +
			"on a secured cluster, the name its credentials may publish results for (docs/operations.md)",
			Value: worker.TokenName(fmt.Sprintf("%s-%d", host, os.Getpid()))},
		&cli.DurationFlag{Name: "grace", Usage: "running tasks may finish for `D` after SIGTERM", Value: 30 * time.Second},
	)
	app.Description = "Runs until SIGINT or SIGTERM: the first lets running tasks finish (up to --grace) and\n" +
		"hands the rest back to the queue; a second hands them back at once."
	app.Action = func(c *cli.Context) error {
		if c.Int("concurrency") < 1 {
			daemon.Usage("worker", "--concurrency must be at least 1")
		}
		if !tasks.ValidID(c.String("name")) {
			daemon.Usage("worker", "--name %q: 1 to 64 letters, digits, '-' and '_' (it is a subject token)", c.String("name"))
		}
		return service.RunWorker(service.WorkerConfig{
			Common: service.Common{
				NATS: c.String("nats"), Auth: natsflags.Auth(c), Data: c.String("data"), Name: c.String("name"),
				Queue: broker.DefaultConfig(), CacheTTL: daemon.CacheTTL(c), Log: daemon.Logger(c),
				MetricsAddr: daemon.MetricsAddr(c),
			},
			Concurrency: c.Int("concurrency"),
			Grace:       c.Duration("grace"),
		})
	}
	daemon.Run(app)
}
