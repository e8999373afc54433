// Command analyze is wopr's command line: it runs jobs (game-tree counts,
// and more kinds as they come) on an embedded cluster inside this process,
// or submits them to a NATS cluster with --nats, and prints their reports.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/cmd/internal/buildinfo"
	"github.com/woprlabs/wopr/cmd/internal/collector"
	"github.com/woprlabs/wopr/cmd/internal/natsflags"
	"github.com/woprlabs/wopr/cmd/internal/suggest"
	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/metrics"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	_ "github.com/woprlabs/wopr/pkg/tasks/all"
)

func main() {
	collector.Tune()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	app := newApp()
	args := os.Args
	if args[len(args)-1] != "--generate-bash-completion" { // urfave/cli wants it last
		args = permuteArgs(app, args)
	}
	err := app.RunContext(ctx, args)
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
		Version:              buildinfo.Version(),
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		OnUsageError:         onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile of this process to `FILE`", Hidden: true},
			&cli.StringFlag{Name: "memprofile", Usage: "write a profile of this process's allocations to `FILE` as it ends", Hidden: true},
			&cli.StringFlag{Name: "trace", Usage: "write an execution trace of this process to `FILE` (go tool trace)", Hidden: true},
		},
		Before: func(c *cli.Context) error {
			if path := c.String("cpuprofile"); path != "" {
				f, err := os.Create(path)
				if err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
			}
			if path := c.String("trace"); path != "" {
				f, err := os.Create(path)
				if err != nil {
					return err
				}
				if err := trace.Start(f); err != nil {
					return err
				}
			}
			return nil
		},
		After: func(c *cli.Context) error {
			if c.String("cpuprofile") != "" {
				pprof.StopCPUProfile()
			}
			if c.String("trace") != "" {
				trace.Stop()
			}
			if path := c.String("memprofile"); path != "" {
				f, err := os.Create(path)
				if err != nil {
					return err
				}
				defer f.Close()
				return pprof.Lookup("allocs").WriteTo(f, 0)
			}
			return nil
		},
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintln(os.Stderr, "analyze:", noCommand("", c.App.Commands, name))
			os.Exit(2)
		},
		Commands: append(games(),
			serveCommand(),
			jobsCommand(),
			statusCommand(),
			workersCommand(),
			reportCommand(),
			cancelCommand(),
			cacheCommand(),
			completionCommand(),
			docsCommand(),
		),
	}
}

// gameCommands build the commands of each game or puzzle family (mnk,
// sudoku, ...), one file each; a file adds its constructor in an init
// function. They are called when the app is built, after every init.
var gameCommands []func() *cli.Command

func games() []*cli.Command {
	var cmds []*cli.Command
	for _, f := range gameCommands {
		cmds = append(cmds, f())
	}
	return cmds
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{msg: fmt.Sprintf(format, args...)}
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	return usageError{msg: suggest.FlagError(suggest.Flags(c), err)}
}

// exitCode prints err as one line and maps it to the exit code: 2 for usage
// errors, 130 for an interrupt, 1 otherwise.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "analyze:", natsflags.Hint(err))
	var ue usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, job.ErrNotFound), errors.Is(err, tasks.ErrInvalid):
		return 2
	case errors.Is(err, context.Canceled):
		return 130
	}
	return 1
}

// Flags every job command accepts after its name.
var (
	natsFlag  = &cli.StringFlag{Name: "nats", Usage: "NATS server `URL` of a wopr cluster (default: run an embedded cluster in this process)", EnvVars: []string{"WOPR_NATS"}}
	dataFlag  = &cli.StringFlag{Name: "data", Usage: "`DIR` for the embedded cluster's state", EnvVars: []string{"WOPR_DATA"}, DefaultText: "wopr in the user's cache directory ($XDG_CACHE_HOME or ~/.cache)"}
	jsonFlag  = &cli.BoolFlag{Name: "json", Usage: "print exactly one JSON object on stdout"}
	quietFlag = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"}
)

func clusterFlags() []cli.Flag {
	flags := []cli.Flag{natsFlag, dataFlag, jsonFlag, quietFlag}
	// Credentials and TLS for NATS.
	return append(flags, natsflags.Flags()...)
}

func jobFlags() []cli.Flag {
	return append(clusterFlags(),
		&cli.BoolFlag{Name: "detach", Usage: "with --nats: print the job id and return at once"},
		&cli.IntFlag{Name: "workers", Usage: "`N` embedded worker slots", DefaultText: "one per CPU"},
		&cli.BoolFlag{Name: "progress", Usage: "print progress lines on stderr even when it is not a terminal"},
		&cli.Float64Flag{Name: "verify", Usage: "with --nats: have a second worker compute this `FRACTION` of the tasks (0 to 1); " +
			"a result is merged only when two workers agree (docs/operations.md, Threat model)"},
		metricsFlag,
	)
}

// metricsFlag serves the embedded cluster's metrics while a job runs (a
// cluster's coordinator and workers serve their own).
var metricsFlag = &cli.StringFlag{Name: "metrics-addr", EnvVars: []string{"WOPR_METRICS_ADDR"},
	Usage: "without --nats: serve Prometheus /metrics, /healthz and /readyz on `HOST:PORT` while the job runs (port 0: any free one)"}

// options builds the client options from the common flags.
func options(c *cli.Context) (client.Options, error) {
	o := client.Options{
		NATS:     c.String("nats"),
		Data:     c.String("data"),
		JSON:     c.Bool("json"),
		Quiet:    c.Bool("quiet"),
		Detach:   c.Bool("detach"),
		Workers:  c.Int("workers"),
		Progress: c.Bool("progress"),
		Log:      logger(),
	}
	if v := os.Getenv("WOPR_STALL_AFTER"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return o, usagef("WOPR_STALL_AFTER=%s: want a duration such as 30s", v)
		}
		o.StallAfter = d
	}
	if o.Workers < 0 {
		return o, usagef("--workers %d: want 0 (one per CPU) or more", o.Workers)
	}
	if c.IsSet("verify") {
		o.Verify = c.Float64("verify")
		if !(o.Verify >= 0 && o.Verify <= 1) {
			return o, usagef("--verify %v: want a fraction from 0 to 1", c.Float64("verify"))
		}
		if o.NATS == "" && o.Verify > 0 {
			return o, usagef("--verify needs --nats: the embedded cluster has one worker, this process's")
		}
	}
	if o.NATS != "" {
		if err := broker.CheckURL(o.NATS); err != nil {
			return o, usagef("--nats: %v", err)
		}
		if err := natsflags.Check(c, o.NATS); err != nil {
			return o, usagef("%v", err)
		}
		o.Auth = natsflags.Auth(c)
	}
	if o.MetricsAddr = c.String("metrics-addr"); o.MetricsAddr != "" {
		if o.NATS != "" {
			return o, usagef("--metrics-addr serves the embedded cluster's metrics: not with --nats (the cluster's coordinator and workers serve theirs)")
		}
		if err := metrics.CheckAddr(o.MetricsAddr); err != nil {
			return o, usagef("--metrics-addr %v", err)
		}
	}
	if o.Detach && o.NATS == "" {
		return o, usagef("--detach needs --nats: an embedded cluster lives only as long as this command")
	}
	if c.IsSet("data") && o.Data == "" {
		return o, usagef("--data: want a directory, got an empty name")
	}
	if fi, err := os.Stat(o.Data); o.Data != "" && err == nil && !fi.IsDir() {
		return o, usagef("--data %s: not a directory", o.Data)
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

// permuteArgs moves the positional arguments of a command behind its flags,
// so that "analyze status ID --nats URL" works like "analyze status --nats
// URL ID" (urfave/cli/v2 stops reading flags at the first argument).
func permuteArgs(app *cli.App, args []string) []string {
	cmds, depth := app.Commands, 1
	// Skip the global flags.
	for depth < len(args) && strings.HasPrefix(args[depth], "-") {
		name := strings.TrimLeft(args[depth], "-")
		depth++
		for _, f := range app.Flags {
			if _, isBool := f.(*cli.BoolFlag); !isBool && slices.Contains(f.Names(), name) {
				depth++
			}
		}
	}
	var cmd *cli.Command
	for depth < len(args) {
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(args[depth]) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		depth++
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	rest := args[depth:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") && takesValue[name] {
			if i+1 == len(rest) {
				// Its value is missing: left last, the flag is
				// refused ("flag needs an argument") rather than
				// given the "--" added below.
				return append(append([]string{}, args[:depth]...), flags...)
			}
			i++
			flags = append(flags, rest[i])
		}
	}
	out := append(append([]string{}, args[:depth]...), flags...)
	if len(positional) > 0 {
		out = append(append(out, "--"), positional...)
	}
	return out
}

// logger logs the embedded cluster's events to stderr at the level named by
// WOPR_LOG (debug, info, warn, error); without it, nothing is logged.
func logger() *slog.Logger {
	var level slog.Level
	name := os.Getenv("WOPR_LOG")
	if name == "" || level.UnmarshalText([]byte(name)) != nil {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}
