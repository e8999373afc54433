package daemon

import (
	"io"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/metrics"
)

// observeFlags are the flags of what a daemon shows of itself: its
// metrics and probes, and its log's format.
func observeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "metrics-addr", Usage: "serve Prometheus /metrics, /healthz and /readyz on `HOST:PORT` (port 0: any free one, logged)",
			EnvVars: []string{"WOPR_METRICS_ADDR"}, DefaultText: "off"},
		&cli.StringFlag{Name: "log-format", Usage: "log `FORMAT` on stderr: text or json (one object a line)", Value: "text",
			EnvVars: []string{"WOPR_LOG_FORMAT"}},
	}
}

// checkObserve reports a bad --metrics-addr or --log-format of command
// name as a usage error.
func checkObserve(name string, c *cli.Context) {
	if addr := c.String("metrics-addr"); addr != "" {
		if err := metrics.CheckAddr(addr); err != nil {
			Usage(name, "--metrics-addr %v", err)
		}
	}
	if f := c.String("log-format"); f != "text" && f != "json" {
		Usage(name, "--log-format %q: want text or json", f)
	}
}

// MetricsAddr is --metrics-addr: where to serve metrics and probes, ""
// for nowhere.
func MetricsAddr(c *cli.Context) string { return c.String("metrics-addr") }

// handler is the log handler of --log-format.
func handler(c *cli.Context, w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	if c.String("log-format") == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}
