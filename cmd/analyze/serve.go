package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/web"
	"github.com/woprlabs/wopr/pkg/client"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the web face: play the games, solve Sudoku and follow the jobs in a browser",
		Description: "Serves pages at / (an overview), /play, /nineboard, /sudoku and /jobs, and their JSON API\n" +
			"(see docs/web.md), from this process: nothing is fetched from elsewhere. Without --nats it runs\n" +
			"an embedded cluster for the jobs, as the job commands do (the one of --data; it also finishes\n" +
			"the jobs left unfinished there); with --nats it is a client of that cluster. It binds to\n" +
			"127.0.0.1 unless --addr names another address.",
		OnUsageError: onUsageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", EnvVars: []string{"WOPR_ADDR"}, Usage: "serve on `HOST:PORT` (port 0: any free one)"},
			&cli.IntFlag{Name: "workers", Usage: "`N` embedded worker slots", DefaultText: "one per CPU"},
			&cli.IntFlag{Name: "max-games", Value: web.DefaultMaxGames, Usage: "keep at most `N` games of each kind (the least recently used goes first)"},
			&cli.DurationFlag{Name: "idle-game", Value: web.DefaultIdleGame, Usage: "forget a game nobody moved in for `D`"},
			metricsFlag,
		}, clusterFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("serve: no arguments expected, got %q", c.Args().First())
			}
			addr := c.String("addr")
			host, port, err := net.SplitHostPort(addr)
			if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
				return usagef("--addr %q: want HOST:PORT with a port from 0 to 65535, such as 127.0.0.1:8080", addr)
			}
			if c.Int("max-games") < 1 {
				return usagef("--max-games %d: want 1 or more", c.Int("max-games"))
			}
			if c.Duration("idle-game") < time.Minute {
				return usagef("--idle-game %v: want 1m or more", c.Duration("idle-game"))
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			// Other commands on the same --data run their jobs here while
			// it serves.
			o.Joinable = o.NATS == ""
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("serve on %s: %w", addr, err)
			}
			conn, err := client.Connect(c.Context, o)
			if err != nil {
				ln.Close()
				return err
			}
			defer conn.Close()
			s, err := web.New(web.Options{Conn: conn, Log: o.Log, MaxGames: c.Int("max-games"), IdleGame: c.Duration("idle-game")})
			if err != nil {
				ln.Close()
				return err
			}
			srv := web.NewHTTPServer(addr, s.Handler())
			if host == "" || host == "0.0.0.0" || host == "::" {
				fmt.Fprintf(c.App.ErrWriter, "analyze: serving on every interface (--addr %s): anyone who reaches this machine can play and submit jobs\n", addr)
			}
			fmt.Fprintf(c.App.Writer, "serving on http://%s/ (Ctrl-C stops)\n", ln.Addr())
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				return err
			case <-c.Context.Done():
			}
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
}
