// Command analyze is wopr's command line: it runs jobs (game-tree counts,
// and more kinds as they come) on an embedded cluster inside this process,
// or submits them to a NATS cluster with --nats, and prints their reports.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/client"
	_ "github.com/woprlabs/wopr/pkg/kinds"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newApp().RunContext(ctx, os.Args)
	stop()
	os.Exit(exitCode(err))
}

func newApp() *cli.App {
	return &cli.App{
		Name:  "analyze",
		Usage: "search game trees and analyse puzzles in bulk, on one machine or a NATS cluster",
		Description: "Without --nats, every job runs on an embedded NATS server with a coordinator and one worker\n" +
			"per CPU inside this process, storing its state under --data. With --nats URL, jobs are\n" +
			"submitted to the coordinator and workers of that cluster.",
		HideHelpCommand: true,
		OnUsageError:    onUsageError,
		Commands: []*cli.Command{
			mnkCommand(),
			jobsCommand(),
			statusCommand(),
			reportCommand(),
			cancelCommand(),
		},
	}
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{msg: fmt.Sprintf(format, args...)}
}

func onUsageError(_ *cli.Context, err error, _ bool) error {
	return usageError{msg: err.Error()}
}

// exitCode prints err as one line and maps it to the exit code: 2 for usage
// errors, 130 for an interrupt, 1 otherwise.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "analyze:", err)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.Is(err, context.Canceled):
		return 130
	}
	return 1
}

// Flags every job command accepts after its name.
var (
	natsFlag  = &cli.StringFlag{Name: "nats", Usage: "NATS server `URL` of a wopr cluster (default: run an embedded cluster in this process)", EnvVars: []string{"WOPR_NATS"}}
	dataFlag  = &cli.StringFlag{Name: "data", Usage: "`DIR` for the embedded cluster's state (default: " + client.DefaultDataDir() + ")", EnvVars: []string{"WOPR_DATA"}}
	jsonFlag  = &cli.BoolFlag{Name: "json", Usage: "print exactly one JSON object on stdout"}
	quietFlag = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"}
)

func clusterFlags() []cli.Flag { return []cli.Flag{natsFlag, dataFlag, jsonFlag, quietFlag} }

func jobFlags() []cli.Flag {
	return append(clusterFlags(),
		&cli.BoolFlag{Name: "detach", Usage: "with --nats: print the job id and return at once"},
		&cli.IntFlag{Name: "workers", Usage: "embedded worker slots (default: one per CPU)"},
	)
}

// options builds the client options from the common flags.
func options(c *cli.Context) (client.Options, error) {
	o := client.Options{
		NATS:    c.String("nats"),
		Data:    c.String("data"),
		JSON:    c.Bool("json"),
		Quiet:   c.Bool("quiet"),
		Detach:  c.Bool("detach"),
		Workers: c.Int("workers"),
	}
	if o.Workers < 0 {
		return o, usagef("--workers %d: want 0 (one per CPU) or more", o.Workers)
	}
	if o.Detach && o.NATS == "" {
		return o, usagef("--detach needs --nats: an embedded cluster lives only as long as this command")
	}
	return o, nil
}

// oneArg returns the single positional argument, a job id.
func oneArg(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("%s: want exactly one job id, got %d arguments", c.Command.Name, c.NArg())
	}
	return c.Args().First(), nil
}
