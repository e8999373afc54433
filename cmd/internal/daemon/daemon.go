// Package daemon holds what the long-running commands (coordinator,
// worker) share on the command line: the app's frame, the flags every
// process has, logging and the exit codes (2 for usage errors, 1 for
// failures).
package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/cmd/internal/buildinfo"
	"github.com/woprlabs/wopr/cmd/internal/natsflags"
	"github.com/woprlabs/wopr/cmd/internal/suggest"
	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/store"
)

// App returns a command-line app named name whose usage errors exit 2.
// flags come after --nats, --data (whose help says what is in DIR) and the
// credential and TLS flags (natsflags), and before --verbose.
func App(name, usage, dataUsage string, flags ...cli.Flag) *cli.App {
	all := []cli.Flag{
		&cli.StringFlag{Name: "nats", Usage: "NATS server `URL`", Value: "nats://127.0.0.1:4222", EnvVars: []string{"WOPR_NATS"}},
		&cli.StringFlag{Name: "data", Usage: dataUsage + " (required)", EnvVars: []string{"WOPR_DATA"}},
		&cli.DurationFlag{Name: "cache-ttl", Usage: "keep results cached in DIR for `D` (0: for ever)", Value: store.DefaultTTL, DefaultText: "720h, 30 days"},
	}
	all = append(all, observeFlags()...)
	// Credentials and TLS for NATS.
	all = append(all, natsflags.Flags()...)
	all = append(append(all, flags...), &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging"})
	// --version only: -v is --verbose here.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the build: module version, VCS revision, Go version"}
	return &cli.App{
		Name:            name,
		Version:         buildinfo.Version(),
		Usage:           usage,
		HideHelpCommand: true,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			Usage(name, "%s", suggest.FlagError(c.App.Flags, err))
			return nil
		},
		Before: func(c *cli.Context) error {
			if c.String("data") == "" {
				Usage(name, "--data DIR is required (or WOPR_DATA): where this process keeps its Badger store")
			}
			if err := broker.CheckURL(c.String("nats")); err != nil {
				Usage(name, "--nats: %v", err)
			}
			if err := natsflags.Check(c, c.String("nats")); err != nil {
				Usage(name, "%v", err)
			}
			if c.Duration("cache-ttl") < 0 {
				Usage(name, "--cache-ttl %v: want 0 (for ever) or more", c.Duration("cache-ttl"))
			}
			checkObserve(name, c)
			if c.NArg() > 0 {
				Usage(name, "no arguments expected, got %q", c.Args().First())
			}
			return nil
		},
		Flags: all,
	}
}

// CacheTTL is the store TTL of --cache-ttl (0 on the command line keeps
// results for ever).
func CacheTTL(c *cli.Context) time.Duration {
	if d := c.Duration("cache-ttl"); d > 0 {
		return d
	}
	return -1
}

// Usage reports a usage error of command name and exits 2.
func Usage(name, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", name, fmt.Sprintf(format, args...))
	os.Exit(2)
}

// Run runs app; a failure is reported and exits 1.
func Run(app *cli.App) {
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, app.Name+":", natsflags.Hint(err))
		os.Exit(1)
	}
}

// Logger logs to stderr in --log-format, debug messages too with
// --verbose.
func Logger(c *cli.Context) *slog.Logger {
	level := slog.LevelInfo
	if c.Bool("verbose") {
		level = slog.LevelDebug
	}
	return slog.New(handler(c, os.Stderr, &slog.HandlerOptions{Level: level}))
}
