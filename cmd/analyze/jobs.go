package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/client"
)

func jobsCommand() *cli.Command {
	return &cli.Command{
		Name:         "jobs",
		Usage:        "list jobs with their state and progress",
		OnUsageError: onUsageError,
		Flags:        clusterFlags(),
		Action: func(c *cli.Context) error {
			o, err := options(c)
			if err != nil {
				return err
			}
			return client.Jobs(c.Context, o)
		},
	}
}

// jobIDCommand is a command that acts on one job given by its id.
func jobIDCommand(name, usage string, flags []cli.Flag, act func(ctx context.Context, c *cli.Context, o client.Options, id string) error) *cli.Command {
	return &cli.Command{
		Name:         name,
		Usage:        usage,
		ArgsUsage:    "ID",
		OnUsageError: onUsageError,
		Flags:        append(clusterFlags(), flags...),
		Action: func(c *cli.Context) error {
			id, err := oneArg(c)
			if err != nil {
				return err
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			return act(c.Context, c, o, id)
		},
	}
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show a job's state and progress, or, without ID, the cluster's",
		ArgsUsage: "[ID]",
		Description: "Without ID: the coordinator that holds the lease (none: submitted jobs wait), the workers alive\n" +
			"with their slots, the work queue (tasks queued, with workers, dead letters) and the jobs by state.",
		OnUsageError: onUsageError,
		Flags:        clusterFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("status: want one job id or none, got %d arguments", c.NArg())
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			if c.NArg() == 0 {
				return client.ClusterStatus(c.Context, o)
			}
			return client.Status(c.Context, o, c.Args().First())
		},
	}
}

func workersCommand() *cli.Command {
	return &cli.Command{
		Name:  "workers",
		Usage: "list the workers: host, slots, busy, tasks done, last seen, kinds; and the work queue",
		Description: "Each worker announces itself every 5 s; one silent for 15 s is lost, and one silent for 10\n" +
			"minutes is no longer listed. The queue line counts the tasks queued, those with workers, and the\n" +
			"dead letters (tasks given up on that the coordinator has not reported yet).",
		OnUsageError: onUsageError,
		Flags:        clusterFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("workers takes no arguments, got %q", c.Args().First())
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			return client.Workers(c.Context, o)
		},
	}
}

func reportCommand() *cli.Command {
	return jobIDCommand("report", "print a job's report (with --wait, wait for it to finish)",
		[]cli.Flag{&cli.BoolFlag{Name: "wait", Usage: "wait for a running job to finish"}},
		func(ctx context.Context, c *cli.Context, o client.Options, id string) error {
			return client.Report(ctx, o, id, c.Bool("wait"))
		})
}

func cancelCommand() *cli.Command {
	return jobIDCommand("cancel", "cancel a job", nil,
		func(ctx context.Context, _ *cli.Context, o client.Options, id string) error {
			return client.Cancel(ctx, o, id)
		})
}
