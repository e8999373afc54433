package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
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
			"127.0.0.1 unless --addr names another address.\n\n" +
			"Requests must name the server in their Host header: localhost, 127.0.0.1, [::1], the address\n" +
			"they reached, or a name of --allowed-hosts (others are refused, 421: a page of another site\n" +
			"whose name was rebound to this address). Off loopback it asks for authentication and will not\n" +
			"start without: --token-file (or WOPR_WEB_TOKEN), whose token may do everything, or --users, a\n" +
			"file of lines \"NAME ROLE sha256:HEX\" (ROLE read: pages, reports, job lists and events; submit:\n" +
			"also submit, upload and cancel jobs; HEX the SHA-256 of the user's token). Programs send\n" +
			"\"Authorization: Bearer TOKEN\"; a browser asks for a name and the token. --https-cert and\n" +
			"--https-key serve HTTPS, which a server off loopback should: tokens cross the network.",
		OnUsageError: onUsageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", EnvVars: []string{"WOPR_ADDR"}, Usage: "serve on `HOST:PORT` (port 0: any free one)"},
			&cli.IntFlag{Name: "workers", Usage: "`N` embedded worker slots", DefaultText: "one per CPU"},
			&cli.IntFlag{Name: "max-games", Value: web.DefaultMaxGames, Usage: "keep at most `N` games of each kind (the least recently used goes first)"},
			&cli.DurationFlag{Name: "idle-game", Value: web.DefaultIdleGame, Usage: "forget a game nobody moved in for `D`"},
			&cli.StringFlag{Name: "allowed-hosts", EnvVars: []string{"WOPR_ALLOWED_HOSTS"}, Usage: "also take requests for `NAMES` (comma-separated, such as wopr.example.com), besides loopback's and the address reached"},
			&cli.StringFlag{Name: "token-file", EnvVars: []string{"WOPR_WEB_TOKEN_FILE"}, TakesFile: true, Usage: "ask every request for the token in `FILE` (its first line; at least 16 characters), which may do everything; WOPR_WEB_TOKEN gives the token itself"},
			&cli.StringFlag{Name: "users", EnvVars: []string{"WOPR_WEB_USERS"}, TakesFile: true, Usage: "ask every request for a user's token: `FILE` of lines \"NAME ROLE sha256:HEX\", ROLE read or submit"},
			&cli.StringFlag{Name: "https-cert", EnvVars: []string{"WOPR_HTTPS_CERT"}, TakesFile: true, Usage: "serve HTTPS with the certificate (chain) in `FILE`"},
			&cli.StringFlag{Name: "https-key", EnvVars: []string{"WOPR_HTTPS_KEY"}, TakesFile: true, Usage: "`FILE` of the HTTPS certificate's key"},
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
			d, err := serveDoor(c, host)
			if err != nil {
				return err
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
			s, err := web.New(web.Options{Conn: conn, Log: o.Log, MaxGames: c.Int("max-games"), IdleGame: c.Duration("idle-game"),
				AllowedHosts: d.hosts, Auth: d.auth})
			if err != nil {
				ln.Close()
				return err
			}
			srv := web.NewHTTPServer(addr, s.Handler())
			scheme := "http"
			if d.tls != nil {
				srv.TLSConfig, scheme = d.tls, "https"
				ln = tls.NewListener(ln, d.tls)
			} else if !loopback(host) {
				fmt.Fprintf(c.App.ErrWriter, "analyze: serving plain HTTP off loopback (--addr %s): tokens cross the network readable; --https-cert and --https-key serve HTTPS\n", addr)
			}
			fmt.Fprintf(c.App.Writer, "serving on %s://%s/ (Ctrl-C stops)\n", scheme, ln.Addr())
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

// door is who serve lets in, and how.
type door struct {
	hosts []string
	auth  *web.Auth   // nil: anyone
	tls   *tls.Config // nil: plain HTTP
}

// serveDoor reads the flags of serve's door: the allowed hosts (and the
// name of --addr), the token and users, and the HTTPS certificate. Off
// loopback (host, of --addr) it refuses to go without authentication.
func serveDoor(c *cli.Context, host string) (door, error) {
	var d door
	for _, h := range strings.Split(c.String("allowed-hosts"), ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if strings.ContainsAny(h, "/ *") {
			return d, usagef("--allowed-hosts: %q: want host names or addresses, comma-separated, such as wopr.example.com", h)
		}
		d.hosts = append(d.hosts, h)
	}
	if host != "" && net.ParseIP(host) == nil {
		d.hosts = append(d.hosts, host) // --addr wopr.example.com:8080
	}

	token := os.Getenv("WOPR_WEB_TOKEN")
	if f := c.String("token-file"); f != "" {
		if token != "" {
			return d, usagef("--token-file %s and WOPR_WEB_TOKEN: give the token one way", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return d, usagef("--token-file: %v", err)
		}
		if token, err = web.ParseToken(data, f); err != nil {
			return d, usagef("--token-file: %v", err)
		}
	} else if token != "" {
		var err error
		if token, err = web.ParseToken([]byte(token), "WOPR_WEB_TOKEN"); err != nil {
			return d, usagef("%v", err)
		}
	}
	var users []web.User
	if f := c.String("users"); f != "" {
		file, err := os.Open(f)
		if err != nil {
			return d, usagef("--users: %v", err)
		}
		users, err = web.ParseUsers(file, f)
		file.Close()
		if err != nil {
			return d, usagef("--users: %v", err)
		}
	}
	if token != "" || len(users) > 0 {
		a, err := web.NewAuth(token, users)
		if err != nil {
			return d, usagef("%v", err)
		}
		d.auth = a
	} else if !loopback(host) {
		return d, usagef("serve: --addr %s is not a loopback address, where anyone who reaches it could read every report and "+
			"submit and cancel jobs: pass --token-file FILE (or WOPR_WEB_TOKEN) or --users FILE (see docs/web.md), or serve on 127.0.0.1", c.String("addr"))
	}

	cert, key := c.String("https-cert"), c.String("https-key")
	switch {
	case cert == "" && key == "":
	case cert == "" || key == "":
		return d, usagef("--https-cert and --https-key go together: give both, or neither for plain HTTP")
	default:
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return d, usagef("--https-cert %s, --https-key %s: %v", cert, key, err)
		}
		d.tls = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	return d, nil
}

// loopback tells whether host (of --addr) is reached from this machine
// only: localhost or a loopback address; empty, meaning every interface,
// is not.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
