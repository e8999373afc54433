package client

import (
	"context"
	"fmt"
	"time"

	"github.com/woprlabs/wopr/internal/metrics"
	"github.com/woprlabs/wopr/pkg/embedded"
)

// served is the embedded cluster's metrics server (Options.MetricsAddr);
// without one, its registry is nil and its methods do nothing.
type served struct {
	reg *metrics.Registry
	srv *metrics.Server
}

// serveMetrics starts serving metrics on o.MetricsAddr, if set, and says
// where on stderr (the port may have been chosen) unless o.Quiet.
func serveMetrics(o *Options) (served, error) {
	if o.MetricsAddr == "" {
		return served{}, nil
	}
	reg := metrics.New()
	srv, err := metrics.Serve(o.MetricsAddr, reg, o.Log)
	if err != nil {
		return served{}, err
	}
	if !o.Quiet {
		fmt.Fprintf(o.Stderr, "analyze: serving metrics on http://%s/metrics\n", srv.Addr())
	}
	return served{reg: reg, srv: srv}, nil
}

// readyWith makes /readyz follow cluster c.
func (s served) readyWith(c *embedded.Cluster) {
	if s.srv != nil {
		s.srv.SetReady(c.Ready)
	}
}

func (s served) close() {
	if s.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = s.srv.Close(ctx)
	}
}
