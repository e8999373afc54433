package service

import (
	"context"
	"errors"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/metrics"
	"github.com/woprlabs/wopr/pkg/coordinator"
	"github.com/woprlabs/wopr/pkg/worker"
)

// observer serves a process's metrics and probes on Common.MetricsAddr;
// with none, its methods do nothing.
type observer struct {
	reg *metrics.Registry
	srv *metrics.Server
}

// observe starts serving, from the process's start: /healthz answers
// while NATS is not reachable yet, and /readyz says why it is not ready.
func observe(c Common) (*observer, error) {
	if c.MetricsAddr == "" {
		return &observer{}, nil
	}
	reg := metrics.New()
	srv, err := metrics.Serve(c.MetricsAddr, reg, c.Log)
	if err != nil {
		return nil, err
	}
	srv.SetReady(func() error { return errors.New("waiting for nats and wopr's streams") })
	return &observer{reg: reg, srv: srv}, nil
}

// notReady makes /readyz answer 503 with reason.
func (o *observer) notReady(reason string) {
	if o.srv != nil {
		o.srv.SetReady(func() error { return errors.New(reason) })
	}
}

// readyWhileConnected makes /readyz answer 200 while b's connection is up.
func (o *observer) readyWhileConnected(b *broker.Broker) {
	if o.srv != nil {
		o.srv.SetReady(func() error {
			if !b.Connected() {
				return errors.New("not connected to nats: reconnecting")
			}
			return nil
		})
	}
}

func (o *observer) coordinator() coordinator.Metrics {
	if o.reg == nil {
		return nil
	}
	return o.reg
}

func (o *observer) worker() worker.Metrics {
	if o.reg == nil {
		return nil
	}
	return o.reg
}

// queueSampling is how often the coordinator samples the work queue.
const queueSampling = 5 * time.Second

// sampleQueue samples the work queue q until the returned stop is called.
func (o *observer) sampleQueue(q metrics.Queue, c Common) (stop func()) {
	if o.reg == nil {
		return func() {}
	}
	return o.reg.SampleQueue(q, queueSampling, c.Log)
}

// close stops serving.
func (o *observer) close(c Common) {
	if o.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := o.srv.Close(ctx); err != nil {
		c.Log.Warn("stop serving metrics", "err", err)
	}
}
