// Command coordinator runs wopr jobs on a NATS JetStream cluster: it splits
// submitted jobs into tasks, merges the workers' results exactly once and
// writes each job's report. Restarted with the same --data, it resumes the
// jobs it was running.
package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	_ "github.com/woprlabs/wopr/pkg/kinds"
	"github.com/woprlabs/wopr/pkg/queue"
	"github.com/woprlabs/wopr/pkg/service"
)

func main() {
	def := queue.DefaultConfig()
	app := &cli.App{
		Name:            "coordinator",
		Usage:           "split wopr jobs into tasks on NATS JetStream and merge their results",
		HideHelpCommand: true,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			fmt.Fprintln(os.Stderr, "coordinator:", err)
			os.Exit(2)
			return nil
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "nats", Usage: "NATS server `URL`", Value: "nats://127.0.0.1:4222", EnvVars: []string{"WOPR_NATS"}},
			&cli.StringFlag{Name: "data", Usage: "`DIR` of the coordinator's Badger store", Required: true, EnvVars: []string{"WOPR_DATA"}},
			&cli.IntFlag{Name: "replicas", Usage: "stream replicas (3 on a 3-node cluster)", Value: def.Replicas},
			&cli.DurationFlag{Name: "ack-wait", Usage: "redeliver a task whose worker sent no heartbeat for this long", Value: def.AckWait},
			&cli.IntFlag{Name: "max-deliver", Usage: "deliveries of a task before it is reported as failed", Value: def.MaxDeliver},
			&cli.IntFlag{Name: "max-ack-pending", Usage: "tasks out with workers at once", Value: def.MaxAckPending},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging"},
		},
		Action: func(c *cli.Context) error {
			q := queue.Config{
				Replicas: c.Int("replicas"), AckWait: c.Duration("ack-wait"),
				MaxDeliver: c.Int("max-deliver"), MaxAckPending: c.Int("max-ack-pending"),
			}
			if q.Replicas < 1 || q.AckWait < 100*time.Millisecond || q.MaxDeliver < 1 || q.MaxAckPending < 1 {
				fmt.Fprintln(os.Stderr, "coordinator: --replicas, --max-deliver and --max-ack-pending must be at least 1, --ack-wait at least 100ms")
				os.Exit(2)
			}
			level := slog.LevelInfo
			if c.Bool("verbose") {
				level = slog.LevelDebug
			}
			return service.RunCoordinator(service.CoordinatorConfig{Common: service.Common{
				NATS: c.String("nats"), Data: c.String("data"), Name: "wopr-coordinator", Queue: q,
				Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
			}})
		},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "coordinator:", err)
		os.Exit(1)
	}
}
