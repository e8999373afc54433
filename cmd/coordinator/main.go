// Command coordinator runs wopr jobs on a NATS JetStream cluster: it splits
// submitted jobs into tasks, merges the workers' results exactly once and
// writes each job's report. Restarted with the same --data, it resumes the
// jobs it was running.
package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/cmd/internal/collector"
	"github.com/woprlabs/wopr/cmd/internal/daemon"
	"github.com/woprlabs/wopr/cmd/internal/natsflags"
	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/service"
	"github.com/woprlabs/wopr/pkg/tasks"
	_ "github.com/woprlabs/wopr/pkg/tasks/all"
)

func main() {
	collector.Tune()
	def := broker.DefaultConfig()
	app := daemon.App("coordinator", "split wopr jobs into tasks on NATS JetStream and merge their results",
		"`DIR` of the coordinator's Badger store",
		&cli.IntFlag{Name: "replicas", Usage: "`N` stream replicas (3 on a 3-node cluster)", Value: def.Replicas},
		&cli.DurationFlag{Name: "ack-wait", Usage: "redeliver a task whose worker sent no heartbeat for `D`", Value: def.AckWait},
		&cli.IntFlag{Name: "max-deliver", Usage: "`N` deliveries of a task before it is reported as failed", Value: def.MaxDeliver},
		&cli.IntFlag{Name: "max-ack-pending", Usage: "`N` tasks out with workers at once", Value: def.MaxAckPending},
		&cli.IntFlag{Name: "max-tasks", Usage: "fail a job of more than `N` tasks before it is planned (clients refuse more than the default)",
			Value: tasks.MaxTasks, EnvVars: []string{"WOPR_MAX_TASKS"}},
	)
	app.Action = func(c *cli.Context) error {
		q := broker.Config{
			Replicas: c.Int("replicas"), AckWait: c.Duration("ack-wait"),
			MaxDeliver: c.Int("max-deliver"), MaxAckPending: c.Int("max-ack-pending"),
		}
		if q.Replicas < 1 || q.AckWait < 100*time.Millisecond || q.MaxDeliver < 1 || q.MaxAckPending < 1 || c.Int("max-tasks") < 1 {
			daemon.Usage("coordinator", "--replicas, --max-deliver, --max-ack-pending and --max-tasks must be at least 1, --ack-wait at least 100ms")
		}
		return service.RunCoordinator(service.CoordinatorConfig{Common: service.Common{
			NATS: c.String("nats"), Auth: natsflags.Auth(c), Data: c.String("data"), Name: "wopr-coordinator", Queue: q,
			CacheTTL: daemon.CacheTTL(c), Log: daemon.Logger(c),
			MetricsAddr: daemon.MetricsAddr(c),
		}, MaxTasks: c.Int("max-tasks")})
	}
	daemon.Run(app)
}
