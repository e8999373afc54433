package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// CheckAddr checks a listen address, HOST:PORT (an empty host: every
// interface; port 0: any free port).
func CheckAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want HOST:PORT", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", addr, port)
	}
	return nil
}

// Server serves a registry over HTTP:
//
//	/metrics  the registry, in Prometheus's text format (or OpenMetrics)
//	/healthz  200 while the process runs
//	/readyz   200 once the check given to SetReady passes, 503 with the
//	          reason otherwise (before SetReady: "starting")
type Server struct {
	srv   *http.Server
	ln    net.Listener
	done  chan struct{}
	err   error // of Serve, once done is closed
	ready atomic.Pointer[func() error]
}

// Serve listens on addr (see CheckAddr) and serves r until Close. It
// returns once the socket is bound; Addr tells where.
func Serve(addr string, r *Registry, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := CheckAddr(addr); err != nil {
		return nil, fmt.Errorf("metrics address %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	s := &Server{ln: ln, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
		EnableOpenMetrics:   true,
	}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := s.check(); err != nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready:", err)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	// A scrape is small and quick: timeouts bound what a slow or stuck
	// client can hold.
	s.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	log.Info("serving metrics", "addr", s.Addr(), "paths", "/metrics /healthz /readyz")
	return s, nil
}

// Addr is the address the server listens on (with the port chosen when the
// flag said 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// SetReady sets what /readyz checks: nil error is ready.
func (s *Server) SetReady(check func() error) { s.ready.Store(&check) }

func (s *Server) check() error {
	f := s.ready.Load()
	if f == nil || *f == nil {
		return errors.New("starting")
	}
	return (*f)()
}

// Close stops serving: requests under way may finish until ctx ends.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	<-s.done
	return errors.Join(err, s.err)
}
