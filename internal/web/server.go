// Package web is wopr's face in a browser (analyze serve): m,n,k games and
// nine-board tic-tac-toe against the engines, Sudoku with live checking, and
// the cluster's jobs with their progress and reports. One net/http server
// serves the pages (html/template), their scripts and styles (embedded; no
// other site is ever asked for anything) and a JSON API that the pages use.
//
// The server owns every game's state and checks every move; the browser
// only shows what the server answers. Games live in bounded stores that
// forget idle ones.
package web

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/tasks"
)

//go:embed templates static
var assets embed.FS

// Options configure a Server.
type Options struct {
	// Conn is the cluster that runs the jobs of /jobs; nil leaves the jobs
	// pages answering that no cluster is connected (tests of the games).
	Conn *client.Conn
	// Log receives the server's errors (nil: slog.Default()).
	Log *slog.Logger
	// MaxGames bounds each game store (0: DefaultMaxGames); IdleGame is how
	// long a game nobody moves in is kept (0: DefaultIdleGame).
	MaxGames int
	IdleGame time.Duration
	// Now is the clock (nil: time.Now); tests move it.
	Now func() time.Time
	// StallAfter is how long a job may do no task, while no worker runs
	// one, before the jobs pages say so (0: client.DefaultStallAfter).
	StallAfter time.Duration
	// AllowedHosts are the names a request's Host header may give besides
	// the loopback ones (localhost, 127.0.0.1, [::1]) and the address the
	// request arrived at (see hostAllowed); a port after them is ignored.
	AllowedHosts []string
	// Auth is who may come in; nil lets anyone in with RoleSubmit (a
	// server on loopback).
	Auth *Auth
}

// Defaults of Options.
const (
	DefaultMaxGames = 10_000
	DefaultIdleGame = 2 * time.Hour
)

// Limits of requests.
const (
	// maxBody bounds a JSON request's body.
	maxBody = 64 << 10
	// maxUpload bounds a Sudoku corpus uploaded with a job.
	maxUpload = 64 << 20
	// handlerTimeout bounds a request that is not a stream of events.
	handlerTimeout = 2 * time.Minute
)

// Server is the web face. Its Handler serves everything.
type Server struct {
	o     Options
	log   *slog.Logger
	pages map[string]*template.Template
	mux   *http.ServeMux
	hosts map[string]bool

	mnk  *gameStore[*mnkGame]
	nine *gameStore[*nineGame]
	sdk  *gameStore[*sudokuGame]

	uploads chan struct{} // a slot for each corpus upload being read (maxUploads)
}

// New returns a Server.
func New(o Options) (*Server, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.MaxGames <= 0 {
		o.MaxGames = DefaultMaxGames
	}
	if o.IdleGame <= 0 {
		o.IdleGame = DefaultIdleGame
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{o: o, log: o.Log, pages: map[string]*template.Template{}, mux: http.NewServeMux(), hosts: map[string]bool{}}
	for _, h := range o.AllowedHosts {
		name := hostName(strings.TrimSpace(h))
		if name == "" || strings.ContainsAny(name, "/ ") {
			return nil, fmt.Errorf("web: allowed host %q: want a name or an address, such as wopr.example.com", h)
		}
		s.hosts[name] = true
	}
	s.mnk = newGameStore[*mnkGame](o.MaxGames, o.IdleGame, o.Now)
	s.nine = newGameStore[*nineGame](o.MaxGames, o.IdleGame, o.Now)
	s.sdk = newGameStore[*sudokuGame](o.MaxGames, o.IdleGame, o.Now)
	s.uploads = make(chan struct{}, maxUploads)
	for _, page := range []string{"index.html", "play.html", "nineboard.html", "sudoku.html", "jobs.html", "job.html"} {
		t, err := template.New("layout.html").ParseFS(assets, "templates/layout.html", "templates/"+page)
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", page, err)
		}
		s.pages[page] = t
	}
	static, err := fs.Sub(assets, "static")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	s.mux.HandleFunc(apiPrefix, s.noEndpoint)
	s.playRoutes()
	s.nineboardRoutes()
	s.sudokuRoutes()
	s.jobsRoutes()
	return s, nil
}

// Handler is the server's handler: every route, behind the security
// headers, the check of the Host header, the authentication (if any), the
// request limits and a recovery that turns a panic into a 500 (and a log
// line) rather than a dropped connection.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("web: handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				writeError(w, http.StatusInternalServerError, "internal error")
			}
		}()
		if !hostAllowed(r, s.hosts) {
			refuseHost(w, r)
			return
		}
		if s.o.Auth != nil && !(r.Method == http.MethodGet && r.URL.Path == "/healthz") {
			var ok bool
			if r, ok = s.o.Auth.authenticate(w, r); !ok {
				return
			}
		}
		if err := crossOrigin.Check(r); err != nil {
			writeError(w, http.StatusForbidden, "refused: "+err.Error())
			return
		}
		if strings.HasPrefix(r.URL.Path, apiPrefix) && cleanPath(r.URL.Path) != r.URL.Path {
			// The mux would redirect to the cleaned path with an HTML
			// body; an API client gets JSON naming what it sent.
			writeError(w, http.StatusNotFound, fmt.Sprintf("no API endpoint %s %s: the path has an empty, . or .. segment", r.Method, r.URL.Path))
			return
		}
		if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(handlerTimeout))
		}
		s.mux.ServeHTTP(w, r)
	})
}

// apiPrefix starts the path of every API endpoint.
const apiPrefix = "/api/"

// cleanPath is p without empty, . and .. segments, its trailing slash kept.
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// apiMethods are the methods an API endpoint may answer.
var apiMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// noEndpoint answers an API request that no route takes: 405 with the
// methods the path takes in Allow, or 404 if it takes none.
func (s *Server) noEndpoint(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range apiMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != apiPrefix && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no API endpoint %s %s", r.Method, r.URL.Path))
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; the endpoint takes %s", r.Method, r.URL.Path, strings.Join(allow, ", ")))
}

// crossOrigin refuses the requests that change something (a move, a new
// game, a job submitted or cancelled) when a browser sends them from
// another site's page: a page anywhere could otherwise have its visitors'
// browsers play, submit jobs or upload to a server on their machine (a form
// can post text that parses as JSON, or a multipart upload, without asking
// the server first). GET, HEAD and OPTIONS pass.
var crossOrigin = http.NewCrossOriginProtection()

// contentSecurityPolicy allows the server's own scripts, styles, images
// and connections, and nothing inline or from elsewhere.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// NewHTTPServer returns an http.Server for h at addr with the timeouts a
// server facing browsers needs. WriteTimeout is left to the handlers (see
// Handler): a stream of job events lasts as long as the job.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute, // an upload of a corpus
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// page renders a page with data.
func (s *Server) page(w http.ResponseWriter, name string, data any) {
	t := s.pages[name]
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := t.ExecuteTemplate(w, "layout.html", data); err != nil {
		s.log.Error("web: render page", "page", name, "err", err)
	}
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	s.page(w, "index.html", map[string]any{"Title": "wopr", "Nav": "home", "Jobs": s.o.Conn != nil})
}

// apiError is the body of every refused or failed API request.
type apiError struct {
	Error string `json:"error"`
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	// <, > and & as they are ("k <= 5"), not \u003c: the body is JSON,
	// never HTML (Content-Type, and nosniff).
	data, err := tasks.MarshalPlain(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"internal error: encode response"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// writeError answers with status and {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg})
}

// readJSON decodes a request's JSON body (at most maxBody bytes, one
// object, no unknown fields) into v; on failure it has answered 400 or 413
// naming the problem and returns false.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", tooBig.Limit))
		return false
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("empty body, want a JSON object")
	}
	writeError(w, http.StatusBadRequest, "malformed request: "+err.Error())
	return false
}
