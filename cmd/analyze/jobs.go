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
	return jobIDCommand("status", "show a job's state and progress", nil,
		func(ctx context.Context, _ *cli.Context, o client.Options, id string) error {
			return client.Status(ctx, o, id)
		})
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
