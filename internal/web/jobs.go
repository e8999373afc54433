package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/internal/study"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
	"github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

// The jobs of the cluster (Options.Conn): /jobs lists them with their live
// progress and has a form that submits the common ones, /jobs/{id} shows
// one with its report. A job submitted here is built exactly as analyze
// builds it, defaults included, and goes through the same client code
// (client.Conn), so the same parameters make the same job: submitting a
// job that is still unfinished returns that job rather than a second one.

func (s *Server) jobsRoutes() {
	s.mux.HandleFunc("GET /jobs", s.jobsPage)
	s.mux.HandleFunc("GET /jobs/{id}", s.jobPage)
	s.mux.HandleFunc("GET /api/jobs", s.withConn(s.listJobs))
	s.mux.HandleFunc("POST /api/jobs", s.withConn(submits(s.submitJob)))
	s.mux.HandleFunc("POST /api/jobs/sudoku", s.withConn(submits(s.submitSudoku)))
	s.mux.HandleFunc("GET /api/jobs/events", s.withConn(s.jobEvents))
	s.mux.HandleFunc("GET /api/jobs/{id}", s.withConn(s.getJob))
	s.mux.HandleFunc("GET /api/jobs/{id}/chart.svg", s.withConn(s.jobChart))
	s.mux.HandleFunc("POST /api/jobs/{id}/cancel", s.withConn(submits(s.cancelJob)))
	s.mux.HandleFunc("GET /api/workers", s.withConn(s.listWorkers))
}

// stallAfterMS is Options.StallAfter in milliseconds, for the pages'
// scripts.
func (s *Server) stallAfterMS() int64 {
	if s.o.StallAfter > 0 {
		return s.o.StallAfter.Milliseconds()
	}
	return client.DefaultStallAfter.Milliseconds()
}

// listWorkers answers the workers and the work queue, as analyze workers
// --json prints them.
func (s *Server) listWorkers(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	rep, err := s.o.Conn.Workers(ctx)
	if err != nil {
		status, msg := s.clusterError(err, "")
		writeError(w, status, msg)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// Timeouts of the requests to the cluster.
const (
	// clusterTimeout bounds a request that reads or changes job records.
	clusterTimeout = 30 * time.Second
	// uploadTimeout bounds a submission that uploads a corpus.
	uploadTimeout = 90 * time.Second
)

// keepAlive is how often a stream of job events with nothing to say sends
// a comment, so that proxies and browsers do not take it for dead.
var keepAlive = 15 * time.Second

// Limits of a Sudoku corpus uploaded with a job: the upload itself is
// limited by maxUpload, its text once decompressed by maxCorpusText,
// counted as it is decompressed, and the window of its zstd frames by
// uploadWindow (zstd -19 and lower levels use at most 8 MiB; --ultra and
// --long more). The upload is written to a temporary file as it arrives
// and its text cut into pieces as it is decompressed: an upload holds a
// window, the text read ahead to choose the chunk (at most 16 MB) and a
// few pieces in memory, whatever it holds. At most maxUploads are read at
// once (two keep both cores of a small server busy); another waits up to
// uploadWait for a slot, then is answered 503 with Retry-After.
const (
	uploadWindow = 8 << 20
	maxUploads   = 2
	maxFileName  = 200
)

// maxCorpusText and uploadWait are variables for the tests.
var (
	maxCorpusText int64 = 256 << 20
	uploadWait          = 10 * time.Second
)

// noCluster is the answer of the jobs API on a server without a cluster.
const noCluster = "no cluster is connected: the jobs API needs analyze serve's cluster"

// withConn answers 503 when the server has no cluster.
func (s *Server) withConn(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.o.Conn == nil {
			writeError(w, http.StatusServiceUnavailable, noCluster)
			return
		}
		h(w, r)
	}
}

func (s *Server) jobsPage(w http.ResponseWriter, r *http.Request) {
	s.page(w, "jobs.html", map[string]any{
		"Title": "Jobs", "Nav": "jobs", "Cluster": s.o.Conn != nil, "StallAfterMS": s.stallAfterMS(),
		"Rungs": mnk.DefaultSweepAlgorithms(), "MaxCountCells": mnk.MaxCountCells,
	})
}

func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	data := map[string]any{"Title": "Job " + id, "Nav": "jobs", "Cluster": s.o.Conn != nil, "ID": id, "StallAfterMS": s.stallAfterMS()}
	if s.o.Conn != nil {
		ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
		defer cancel()
		if _, err := s.o.Conn.Job(ctx, id); err != nil {
			status, msg := s.clusterError(err, id)
			data["Title"], data["Error"] = "No such job", msg
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
		}
	}
	s.page(w, "job.html", data)
}

// jobDetail is a job with its report: GET /api/jobs/{id}.
type jobDetail struct {
	job.Summary
	Failures []tasks.Failure `json:"failures"`
	Text     string          `json:"text,omitempty"`   // the report as analyze prints it
	Report   json.RawMessage `json:"report,omitempty"` // as analyze --json prints it
	// Chart is the URL of the sweep's chart, once the sweep is done.
	Chart string `json:"chart,omitempty"`
}

func detail(j *job.Record) jobDetail {
	d := jobDetail{Summary: j.Summary(), Failures: j.Failures, Text: j.Text}
	if d.Failures == nil {
		d.Failures = []tasks.Failure{}
	}
	if json.Valid(j.Report) {
		d.Report = j.Report
	}
	if j.State == job.Done && j.Spec.Kind == (mnk.Sweep{}).Name() && d.Report != nil {
		d.Chart = "/api/jobs/" + j.ID + "/chart.svg"
	}
	return d
}

// clusterError is the status and message of an error from the cluster.
func (s *Server) clusterError(err error, id string) (int, string) {
	switch {
	case errors.Is(err, job.ErrNotFound):
		if len(id) > 80 {
			id = id[:80] + "..."
		}
		return http.StatusNotFound, fmt.Sprintf("no job %q", id)
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "the cluster did not answer in time"
	}
	s.log.Error("web: cluster", "err", err)
	return http.StatusBadGateway, "cluster: " + err.Error()
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	records, err := s.o.Conn.Jobs(ctx)
	if err != nil {
		status, msg := s.clusterError(err, "")
		writeError(w, status, msg)
		return
	}
	list := make([]job.Summary, len(records))
	for i, j := range records {
		list[i] = j.Summary()
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": list})
}

// requestedJob reads the record of the job the path names; on failure it
// has answered and returns false.
func (s *Server) requestedJob(w http.ResponseWriter, r *http.Request) (*job.Record, bool) {
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	j, err := s.o.Conn.Job(ctx, r.PathValue("id"))
	if err != nil {
		status, msg := s.clusterError(err, r.PathValue("id"))
		writeError(w, status, msg)
		return nil, false
	}
	return j, true
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	if j, ok := s.requestedJob(w, r); ok {
		writeJSON(w, http.StatusOK, detail(j))
	}
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	j, err := s.o.Conn.Cancel(ctx, r.PathValue("id"))
	if err != nil {
		status, msg := s.clusterError(err, r.PathValue("id"))
		writeError(w, status, msg)
		return
	}
	if j.State.Final() {
		writeError(w, http.StatusConflict, fmt.Sprintf("job %s is %s already: nothing to cancel", j.ID, j.State))
		return
	}
	writeJSON(w, http.StatusOK, j.Summary())
}

// jobChart draws a done sweep's chart from its report, as analyze mnk
// sweep --chart does.
func (s *Server) jobChart(w http.ResponseWriter, r *http.Request) {
	j, ok := s.requestedJob(w, r)
	if !ok {
		return
	}
	if j.Spec.Kind != (mnk.Sweep{}).Name() {
		writeError(w, http.StatusNotFound, fmt.Sprintf("job %s is %s, not a sweep: it has no chart", j.ID, j.Spec.Kind))
		return
	}
	if j.State != job.Done {
		writeError(w, http.StatusConflict, fmt.Sprintf("job %s is %s: its chart comes with its report", j.ID, j.State))
		return
	}
	var rep mnk.SweepReport
	if err := json.Unmarshal(j.Report, &rep); err != nil {
		s.log.Error("web: sweep report", "job", j.ID, "err", err)
		writeError(w, http.StatusInternalServerError, "the sweep's report does not decode")
		return
	}
	svg, err := study.Chart(&rep, "svg")
	if err != nil {
		s.log.Error("web: sweep chart", "job", j.ID, "err", err)
		writeError(w, http.StatusInternalServerError, "draw the chart: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	// A done job's report never changes.
	w.Header().Set("Cache-Control", "private, max-age=86400")
	w.Write(svg)
}

// jobEvents streams the jobs' records as server-sent events: an event
// "job" with a job.Summary each time a record is written (every record
// first), and a comment every keepAlive. With ?id= only that job's. It
// ends when the client goes away.
func (s *Server) jobEvents(w http.ResponseWriter, r *http.Request) {
	only := r.URL.Query().Get("id")
	if only != "" && !tasks.ValidID(only) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no job %q", only))
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	updates, err := s.o.Conn.Watch(ctx)
	if err != nil {
		status, msg := s.clusterError(err, "")
		writeError(w, status, msg)
		return
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// Ask a browser that lost the stream to come back after 3 s.
	if _, err := io.WriteString(w, "retry: 3000\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		var msg []byte
		select {
		case <-ctx.Done():
			return
		case j, ok := <-updates:
			if !ok {
				return // the watch stopped: the browser comes back
			}
			if only != "" && j.ID != only {
				continue
			}
			data, err := json.Marshal(j.Summary())
			if err != nil {
				continue
			}
			msg = fmt.Appendf(nil, "event: job\ndata: %s\n\n", data)
		case <-tick.C:
			msg = []byte(": keep-alive\n\n")
		}
		if _, err := w.Write(msg); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// submitRequest is the body of POST /api/jobs.
type submitRequest struct {
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params"`
}

// submitKinds make the specs of the kinds that POST /api/jobs takes, as
// analyze's commands make them: the parameters given over the kind's
// defaults, checked by the kind (its Spec).
var submitKinds = map[string]func(raw json.RawMessage) (tasks.Spec, error){
	mnk.Count{}.Name():    countSpec,
	mnk.Levels{}.Name():   levelsSpec,
	mnk.Solve{}.Name():    solveSpec,
	mnk.Sweep{}.Name():    sweepSpec,
	mnk.Simulate{}.Name(): simulateSpec,
}

func kindNames() string {
	names := make([]string, 0, len(submitKinds))
	for k := range submitKinds {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func (s *Server) submitJob(w http.ResponseWriter, r *http.Request) {
	var req submitRequest
	if !readJSON(w, r, &req) {
		return
	}
	build, ok := submitKinds[req.Kind]
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("kind %q: want one of %s (a Sudoku corpus goes to POST /api/jobs/sudoku)", req.Kind, kindNames()))
		return
	}
	spec, err := build(req.Params)
	if err != nil {
		writeError(w, http.StatusBadRequest, req.Kind+" params: "+fieldNames(err))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	j, err := s.o.Conn.Submit(ctx, spec)
	if err != nil {
		status, msg := s.clusterError(err, "")
		writeError(w, status, msg)
		return
	}
	writeJSON(w, http.StatusAccepted, j.Summary())
}

// decodeParams decodes a job's parameters over p, which holds the kind's
// defaults: a field left out keeps its default. Unknown fields are refused.
func decodeParams(raw json.RawMessage, p any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		return errors.New("want an object of the kind's parameters, such as {\"rows\": 3, \"cols\": 3}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return err
	}
	return nil
}

// flagFields are the JSON fields of the flags that the kinds' Validate
// errors name.
var flagFields = []struct{ flag, field string }{
	{"--method", "method"}, {"--certificate-positions", "certificate_positions"}, {"--node-budget", "node_budget"}, {"--cell-time", "cell_seconds"}, {"--tt-mb", "tt_mb"},
	{"--games-per-task", "games_per_task"}, {"--games", "games"}, {"--boards", "boards"},
	{"--algorithms", "algorithms"}, {"--exact", "exact"}, {"--k", "ks"}, {"-x", "x"}, {"-o", "o"},
}

// fieldNames is the message of a parameters' error, naming the JSON field
// where it names analyze's flag or a Go type.
func fieldNames(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return fmt.Sprintf("%s: want %s, not %s", typeErr.Field, typeErr.Type, typeErr.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	for _, f := range flagFields {
		if rest, ok := strings.CutPrefix(msg, f.flag); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, ":")) {
			msg = f.field + rest
			break
		}
	}
	// A message that names several parameters ("--games 100000000
	// --games-per-task 1: ... tasks") names the others after the first.
	for _, f := range flagFields {
		if strings.HasPrefix(f.flag, "--") {
			msg = strings.ReplaceAll(msg, " "+f.flag+" ", " "+f.field+" ")
		}
	}
	return msg
}

// has tells whether the parameters raw give field a value: null, which
// leaves a field as it was when decoded, gives none.
func has(raw json.RawMessage, field string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	v, ok := m[field]
	return ok && string(v) != "null"
}

// defaultK gives a board whose parameters raw leave k out the kind's
// default k, as analyze does without --k.
func defaultK(raw json.RawMessage, rows, cols int, k *int) {
	if !has(raw, "k") {
		*k = mnk.DefaultK(rows, cols)
	}
}

// countSpec is the spec of analyze mnk count's job.
func countSpec(raw json.RawMessage) (tasks.Spec, error) {
	p := mnk.DefaultCountParams()
	if err := decodeParams(raw, &p); err != nil {
		return tasks.Spec{}, err
	}
	defaultK(raw, p.Rows, p.Cols, &p.K)
	return p.Spec()
}

// levelsSpec is the spec of analyze mnk count's job past 16 cells (or
// with --method levels): a level count, its memory bounded per task.
func levelsSpec(raw json.RawMessage) (tasks.Spec, error) {
	var p mnk.LevelsParams
	if err := decodeParams(raw, &p); err != nil {
		return tasks.Spec{}, err
	}
	defaultK(raw, p.Rows, p.Cols, &p.K)
	return p.Spec()
}

// solveSpec is the spec of analyze mnk solve's job. The certificate is a
// file that analyze writes (--certificate), which the page does not
// offer: it is not asked for.
func solveSpec(raw json.RawMessage) (tasks.Spec, error) {
	p := mnk.DefaultSolveParams()
	if err := decodeParams(raw, &p); err != nil {
		return tasks.Spec{}, err
	}
	if p.Certificate {
		return tasks.Spec{}, errors.New("certificate is a file that analyze writes (analyze mnk solve --certificate FILE): the job's page does not offer it")
	}
	defaultK(raw, p.Rows, p.Cols, &p.K)
	return p.Spec()
}

// sweepSpec is the spec of analyze mnk sweep's job. The page draws the
// chart from the report, so the files that analyze writes (csv, chart)
// are not asked for.
func sweepSpec(raw json.RawMessage) (tasks.Spec, error) {
	p := mnk.DefaultSweepParams()
	if err := decodeParams(raw, &p); err != nil {
		return tasks.Spec{}, err
	}
	if p.CSV {
		return tasks.Spec{}, errors.New("csv is a file that analyze writes: the job's page shows the rows and draws the chart from the report")
	}
	return p.Spec()
}

// simulateSpec is the spec of analyze mnk simulate's job.
func simulateSpec(raw json.RawMessage) (tasks.Spec, error) {
	p := mnk.DefaultSimulateParams()
	if err := decodeParams(raw, &p); err != nil {
		return tasks.Spec{}, err
	}
	defaultK(raw, p.Rows, p.Cols, &p.K)
	return p.Spec()
}

// submitSudoku submits a Sudoku corpus solve of an uploaded file
// (multipart/form-data: "file", and "chunk", the puzzles per task, 0 or
// left out for analyze's choice by the size) through the kind's submit
// side, as analyze sudoku solve FILE does (sudoku.SubmitCorpus): the
// file's text (decompressed if it is gzip or zstd) is uploaded to the
// cluster, named by its content, and the job names the file. Parameters
// that the kind refuses (tasks.ErrInvalid) are a bad request; an upload
// past a limit (maxUpload, maxCorpusText, uploadWindow) is too large.
func (s *Server) submitSudoku(w http.ResponseWriter, r *http.Request) {
	wait := time.NewTimer(uploadWait)
	defer wait.Stop()
	select {
	case s.uploads <- struct{}{}:
		defer func() { <-s.uploads }()
	case <-wait.C:
		w.Header().Set("Retry-After", strconv.Itoa(int(uploadWait.Seconds())+1))
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("%d uploads are being read: try again later", maxUploads))
		return
	case <-r.Context().Done():
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+64<<10)
	mr, err := r.MultipartReader()
	if err != nil {
		writeError(w, http.StatusBadRequest, "want a multipart/form-data upload with the field file: "+err.Error())
		return
	}
	var (
		name  string
		file  *os.File // the upload as it came, compressed or not
		chunk int
	)
	defer func() {
		if file != nil {
			file.Close()
			os.Remove(file.Name())
		}
	}()
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			uploadError(w, err)
			return
		}
		switch part.FormName() {
		case "file":
			if file != nil {
				writeError(w, http.StatusBadRequest, "file: one file per job")
				return
			}
			name = fileName(part.FileName())
			if file, err = os.CreateTemp("", "wopr-upload-*"); err != nil {
				writeError(w, http.StatusInternalServerError, "keep the upload: "+err.Error())
				return
			}
			n, err := io.Copy(file, io.LimitReader(part, maxUpload+1))
			if err != nil {
				uploadError(w, err)
				return
			}
			if n > maxUpload {
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("file: larger than %d bytes", maxUpload))
				return
			}
		case "chunk":
			v, err := io.ReadAll(io.LimitReader(part, 32))
			if err != nil {
				uploadError(w, err)
				return
			}
			if s := strings.TrimSpace(string(v)); s != "" {
				if chunk, err = strconv.Atoi(s); err != nil {
					writeError(w, http.StatusBadRequest, fmt.Sprintf("chunk %q: want 1 to %d puzzles per task (0 or empty: by the file's size)", s, sudoku.MaxChunk))
					return
				}
			}
		default:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown field %q: want file and chunk", part.FormName()))
			return
		}
	}
	if file == nil {
		writeError(w, http.StatusBadRequest, "file: no file uploaded")
		return
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		writeError(w, http.StatusInternalServerError, "read the upload back: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), uploadTimeout)
	defer cancel()
	j, err := s.o.Conn.SubmitWith(ctx, func(ctx context.Context, in tasks.Inputs) (tasks.Spec, error) {
		// The job that analyze sudoku solve FILE makes of the same text.
		src := sudoku.ReaderSource(name, bufio.NewReaderSize(file, 64<<10), infile.Limits{Text: maxCorpusText, Window: uploadWindow})
		spec, damaged, err := sudoku.SubmitCorpus(ctx, in, sudoku.Solve{}.Name(), []sudoku.Source{src}, sudoku.SolveParams{Chunk: chunk})
		if err == nil && damaged != nil {
			// analyze solves the lines before the damage and fails, which a
			// page would show as a failure anyway.
			err = tasks.Invalid("%v", damaged)
		}
		return spec, err
	})
	var limit *infile.LimitError
	switch {
	case errors.As(err, &limit):
		writeError(w, http.StatusRequestEntityTooLarge, err.Error())
		return
	case errors.Is(err, tasks.ErrInvalid):
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		status, msg := s.clusterError(err, "")
		writeError(w, status, msg)
		return
	}
	writeJSON(w, http.StatusAccepted, j.Summary())
}

// uploadError answers a failed read of an upload.
func uploadError(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("upload larger than %d bytes", maxUpload))
		return
	}
	writeError(w, http.StatusBadRequest, "read the upload: "+err.Error())
}

// fileName is the name a job gives an uploaded file: its base name, in
// printable characters, at most maxFileName bytes.
func fileName(s string) string {
	s = path.Base(strings.ReplaceAll(s, `\`, "/"))
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	for len(s) > maxFileName {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	if s == "" || s == "." || s == "/" {
		return "upload.txt"
	}
	return s
}
