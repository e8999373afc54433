package main

import (
	"encoding/json"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// cacheCommand holds what acts on the coordinator's result cache.
func cacheCommand() *cli.Command {
	return &cli.Command{
		Name:  "cache",
		Usage: "act on the coordinator's result cache",
		Subcommands: []*cli.Command{{
			Name:  "purge",
			Usage: "delete the cached results of a worker (quarantining it) or of a job",
			Description: "With --worker: every result the worker computed is deleted from the result cache, and the\n" +
				"coordinator refuses its results from now on (docs/operations.md, Threat model). With --job: every\n" +
				"result the job merged is deleted, so that the same job runs again is computed afresh. The\n" +
				"coordinator runs it as a job of kind " + job.PurgeKind + ".",
			OnUsageError: onUsageError,
			Flags: append(clusterFlags(),
				&cli.StringFlag{Name: "worker", Usage: "the worker `NAME` (as analyze workers lists it)"},
				&cli.StringFlag{Name: "job", Usage: "the job `ID`"},
			),
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usagef("cache purge: no arguments, got %q (give --worker or --job)", c.Args().First())
				}
				p := job.PurgeParams{Worker: c.String("worker"), Job: c.String("job")}
				if err := p.Check(); err != nil {
					return usagef("cache purge: %v", err)
				}
				o, err := options(c)
				if err != nil {
					return err
				}
				raw, err := json.Marshal(p)
				if err != nil {
					return err
				}
				return client.Run(c.Context, o, tasks.Spec{Kind: job.PurgeKind, Params: raw})
			},
		}},
	}
}
