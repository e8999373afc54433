package main

import (
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

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:         "status",
		Usage:        "show a job's state and progress",
		ArgsUsage:    "ID",
		OnUsageError: onUsageError,
		Flags:        clusterFlags(),
		Action: func(c *cli.Context) error {
			id, err := oneArg(c)
			if err != nil {
				return err
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			return client.Status(c.Context, o, id)
		},
	}
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:         "report",
		Usage:        "print a job's report (with --wait, wait for it to finish)",
		ArgsUsage:    "ID",
		OnUsageError: onUsageError,
		Flags:        append(clusterFlags(), &cli.BoolFlag{Name: "wait", Usage: "wait for a running job to finish"}),
		Action: func(c *cli.Context) error {
			id, err := oneArg(c)
			if err != nil {
				return err
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			return client.Report(c.Context, o, id, c.Bool("wait"))
		},
	}
}

func cancelCommand() *cli.Command {
	return &cli.Command{
		Name:         "cancel",
		Usage:        "cancel a job",
		ArgsUsage:    "ID",
		OnUsageError: onUsageError,
		Flags:        clusterFlags(),
		Action: func(c *cli.Context) error {
			id, err := oneArg(c)
			if err != nil {
				return err
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			return client.Cancel(c.Context, o, id)
		},
	}
}
