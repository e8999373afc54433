// Command worker pulls wopr tasks from a NATS JetStream cluster, runs them
// and reports their results, caching results in a Badger store on disk.
package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	_ "github.com/woprlabs/wopr/pkg/kinds"
	"github.com/woprlabs/wopr/pkg/queue"
	"github.com/woprlabs/wopr/pkg/service"
)

func main() {
	host, _ := os.Hostname()
	app := &cli.App{
		Name:  "worker",
		Usage: "run wopr tasks from a NATS JetStream cluster",
		Description: "Runs until SIGINT or SIGTERM: the first lets running tasks finish (up to --grace) and\n" +
			"hands the rest back to the queue; a second hands them back at once.",
		HideHelpCommand: true,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(2)
			return nil
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "nats", Usage: "NATS server `URL`", Value: "nats://127.0.0.1:4222", EnvVars: []string{"WOPR_NATS"}},
			&cli.StringFlag{Name: "data", Usage: "`DIR` of the worker's Badger cache", Required: true, EnvVars: []string{"WOPR_DATA"}},
			&cli.IntFlag{Name: "concurrency", Aliases: []string{"c"}, Usage: "task slots", Value: runtime.NumCPU()},
			&cli.StringFlag{Name: "name", Usage: "worker `NAME` in results and logs", Value: fmt.Sprintf("%s-%d", host, os.Getpid())},
			&cli.DurationFlag{Name: "grace", Usage: "how long running tasks may finish after SIGTERM", Value: 30 * time.Second},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging"},
		},
		Action: func(c *cli.Context) error {
			if c.Int("concurrency") < 1 {
				fmt.Fprintln(os.Stderr, "worker: --concurrency must be at least 1")
				os.Exit(2)
			}
			return service.RunWorker(service.WorkerConfig{
				Common: service.Common{
					NATS: c.String("nats"), Data: c.String("data"), Name: c.String("name"),
					Queue: queue.DefaultConfig(), Log: logger(c.Bool("verbose")),
				},
				Concurrency: c.Int("concurrency"),
				Grace:       c.Duration("grace"),
			})
		},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func logger(verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}
