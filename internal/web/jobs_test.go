package web

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
	"github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

// newJobsServer returns a Server on a cluster of its own: an embedded NATS
// server, coordinator and workers, Badger under a temporary directory.
func newJobsServer(t testing.TB, workers int) *Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Connect(ctx, client.Options{Data: t.TempDir(), Workers: workers, Log: log})
	if err != nil {
		t.Fatalf("connect an embedded cluster: %v", err)
	}
	t.Cleanup(conn.Close)
	return newTestServer(t, &Options{Conn: conn, Log: log})
}

// submit posts a job and returns its id, failing unless it is accepted.
func submit(t testing.TB, s *Server, kind, params string) string {
	t.Helper()
	w := do(t, s, "POST", "/api/jobs", fmt.Sprintf(`{"kind": %q, "params": %s}`, kind, params))
	if w.Code != http.StatusAccepted {
		t.Fatalf("submit %s %s: %d %s, want 202", kind, params, w.Code, w.Body)
	}
	var j job.Summary
	if err := json.Unmarshal(w.Body.Bytes(), &j); err != nil || j.ID == "" {
		t.Fatalf("submit %s: answer %s: want a job", kind, w.Body)
	}
	return j.ID
}

// waitJob polls a job until it is final and returns it.
func waitJob(t testing.TB, s *Server, id string) jobDetail {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		w := do(t, s, "GET", "/api/jobs/"+id, "")
		if w.Code != http.StatusOK {
			t.Fatalf("GET /api/jobs/%s: %d %s, want 200", id, w.Code, w.Body)
		}
		var d jobDetail
		if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
			t.Fatalf("GET /api/jobs/%s: %v", id, err)
		}
		if d.State.Final() {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s (%d of %d tasks) after 30 s", id, d.State, d.Done, d.Tasks)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

// countText is analyze mnk count's report of tic-tac-toe, but for the
// lines of the run (tasks, cache hits, elapsed).
const countText = `m,n,k-game 3,3,3: 3 rows, 3 columns, 3 in a row
  value (first player)       draw
  tree nodes                 549,946
  complete games             255,168
    X wins                   131,184
    O wins                   77,904
    draws                    46,080
  games up to symmetry       26,830
  games by length (plies)     5: 1,440
                              6: 5,328
                              7: 47,952
                              8: 72,576
                              9: 127,872
  positions                  5,478 (765 up to symmetry)
  terminal positions         958 (138 up to symmetry)
    X wins                   626 (91)
    O wins                   316 (44)
    draws                    16 (3)
  split depth                3
`

func TestJobsWithoutCluster(t *testing.T) {
	s := newTestServer(t, nil)
	for _, path := range []string{"/jobs", "/jobs/20261201-120000-abcdef"} {
		w := do(t, s, "GET", path, "")
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "No cluster is connected") {
			t.Errorf("GET %s: %d, want 200 and a page saying no cluster is connected", path, w.Code)
		}
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/jobs", ""},
		{"POST", "/api/jobs", `{"kind": "mnk.count", "params": {}}`},
		{"POST", "/api/jobs/sudoku", ""},
		{"GET", "/api/jobs/events", ""},
		{"GET", "/api/jobs/x", ""},
		{"GET", "/api/jobs/x/chart.svg", ""},
		{"POST", "/api/jobs/x/cancel", ""},
	} {
		w := do(t, s, c.method, c.path, c.body)
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s %s: %d, want 503", c.method, c.path, w.Code)
		}
		if msg := apiErrorOf(t, w); !strings.Contains(msg, "no cluster") {
			t.Errorf("%s %s: error %q, want it to say no cluster is connected", c.method, c.path, msg)
		}
	}
}

func TestJobsAPI(t *testing.T) {
	s := newJobsServer(t, 2)

	t.Run("count", func(t *testing.T) {
		id := submit(t, s, "mnk.count", `{"rows": 3, "cols": 3}`)
		d := waitJob(t, s, id)
		if d.State != "done" || d.Failed != 0 {
			t.Fatalf("job %s: %s with %d failed tasks, want done with none (error %q)", id, d.State, d.Failed, d.Error)
		}
		// The spec analyze mnk count builds: k and the split depth by default.
		if got, want := string(d.Params), `{"rows":3,"cols":3,"k":3,"split_depth":-1}`; got != want {
			t.Errorf("params %s, want analyze's %s", got, want)
		}
		var rep struct{ Games, Nodes int }
		if err := json.Unmarshal(d.Report, &rep); err != nil {
			t.Fatalf("report %s: %v", d.Report, err)
		}
		if rep.Games != 255_168 || rep.Nodes != 549_946 {
			t.Errorf("report: %d games, %d nodes; want 255,168 and 549,946", rep.Games, rep.Nodes)
		}
		if !strings.HasPrefix(d.Text, countText) {
			t.Errorf("text report:\n%s\nwant it to begin as analyze's:\n%s", d.Text, countText)
		}
		if d.Chart != "" {
			t.Errorf("a count has a chart: %q", d.Chart)
		}
		w := do(t, s, "GET", "/api/jobs", "")
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), id) {
			t.Errorf("GET /api/jobs: %d %s, want 200 listing %s", w.Code, w.Body, id)
		}
		if strings.Contains(w.Body.String(), "255,168") {
			t.Error("GET /api/jobs lists the reports, want only the summaries")
		}
		// Cancelling a done job says so and changes nothing.
		w = do(t, s, "POST", "/api/jobs/"+id+"/cancel", "")
		if w.Code != http.StatusConflict || !strings.Contains(apiErrorOf(t, w), "done") {
			t.Errorf("cancel a done job: %d %s, want 409 saying it is done", w.Code, w.Body)
		}
		if d := waitJob(t, s, id); d.State != "done" || d.CancelRequested {
			t.Errorf("after a refused cancel: %s, cancel requested %v; want done, unchanged", d.State, d.CancelRequested)
		}
		if w := do(t, s, "GET", "/api/jobs/"+id+"/chart.svg", ""); w.Code != http.StatusNotFound {
			t.Errorf("chart of a count: %d, want 404", w.Code)
		}
		if w := do(t, s, "GET", "/jobs/"+id, ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `data-id="`+id+`"`) {
			t.Errorf("GET /jobs/%s: %d, want the job's page", id, w.Code)
		}
	})

	t.Run("defaults", func(t *testing.T) {
		for _, c := range []struct{ kind, params, want string }{
			{"mnk.solve", `{}`, `{"rows":3,"cols":3,"k":3,"split_depth":-1,"tt_mb":64,"method":"auto"}`},
			{"mnk.simulate", `{"games": 10}`, `{"rows":3,"cols":3,"k":3,"x":"random","o":"random","games":10,"seed":1}`},
			{"mnk.count", `{"rows": 4, "cols": 4, "k": null}`, `{"rows":4,"cols":4,"k":4,"split_depth":-1}`},
		} {
			spec, err := submitKinds[c.kind](json.RawMessage(c.params))
			if err != nil {
				t.Fatalf("%s %s: %v", c.kind, c.params, err)
			}
			if got := spec.Params; string(got) != c.want {
				t.Errorf("%s %s: params %s, want analyze's %s", c.kind, c.params, got, c.want)
			}
		}
		before := strings.Join(mnk.DefaultSweepBoards, ",")
		if _, err := sweepSpec(json.RawMessage(`{"boards": ["3x3"]}`)); err != nil {
			t.Fatal(err)
		}
		if after := strings.Join(mnk.DefaultSweepBoards, ","); after != before {
			t.Errorf("a sweep's boards changed the default boards from %s to %s", before, after)
		}
	})

	t.Run("sweep", func(t *testing.T) {
		id := submit(t, s, "mnk.sweep", `{"boards": ["3x3"], "ks": [3], "algorithms": ["minimax", "alphabeta"]}`)
		d := waitJob(t, s, id)
		if d.State != "done" {
			t.Fatalf("sweep %s: %s (%s), want done", id, d.State, d.Error)
		}
		var rep mnk.SweepReport
		if err := json.Unmarshal(d.Report, &rep); err != nil || len(rep.Rows) != 2 || rep.Rows[0].Nodes != 549_946 {
			t.Fatalf("sweep report %s (%v): want 2 rows, minimax's of 549,946 nodes", d.Report, err)
		}
		if d.Chart == "" {
			t.Fatal("a done sweep without a chart")
		}
		w := do(t, s, "GET", d.Chart, "")
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "image/svg+xml" || !bytes.Contains(w.Body.Bytes(), []byte("<svg")) {
			t.Errorf("GET %s: %d %s, %.60q; want 200 and an SVG", d.Chart, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	})

	t.Run("cancel", func(t *testing.T) {
		// A sweep that would run for a minute: minimax on 4x4 is stopped by
		// its cell time, never by its budget.
		id := submit(t, s, "mnk.sweep", `{"boards": ["4x4"], "ks": [4], "algorithms": ["minimax"], "node_budget": 1000000000000000, "cell_seconds": 60}`)
		w := do(t, s, "POST", "/api/jobs/"+id+"/cancel", "")
		if w.Code != http.StatusOK {
			t.Fatalf("cancel %s: %d %s, want 200", id, w.Code, w.Body)
		}
		if d := waitJob(t, s, id); d.State != "cancelled" {
			t.Errorf("job %s after cancel: %s, want cancelled", id, d.State)
		}
		if w := do(t, s, "GET", "/api/jobs/"+id+"/chart.svg", ""); w.Code != http.StatusConflict {
			t.Errorf("chart of a cancelled sweep: %d, want 409", w.Code)
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, c := range []struct {
			body string
			code int
			want string // in the error
		}{
			{`{"kind": "mnk.count", "params": {"rows": 9, "cols": 9}}`, 400, "board 9x9"},
			{`{"kind": "mnk.count", "params": {"rows": "three"}}`, 400, "rows: want int"},
			{`{"kind": "mnk.count", "params": {"bogus": 1}}`, 400, `unknown field "bogus"`},
			{`{"kind": "mnk.count", "params": {"k": 0}}`, 400, "k 0"},
			{`{"kind": "mnk.count", "params": {"split_depth": 99}}`, 400, "split depth 99"},
			{`{"kind": "mnk.count", "params": [1]}`, 400, "want an object"},
			{`{"kind": "mnk.solve", "params": {"method": "guess"}}`, 400, `method "guess"`},
			{`{"kind": "mnk.solve", "params": {"tt_mb": 0}}`, 400, "tt_mb 0"},
			{`{"kind": "mnk.solve", "params": {"certificate": true, "certificate_positions": 100}}`, 400, "certificate is a file that analyze writes"},
			{`{"kind": "mnk.solve", "params": {"certificate_positions": 100}}`, 400, "certificate_positions 100: only with --certificate"},
			{`{"kind": "mnk.sweep", "params": {"ks": []}}`, 400, "ks: want"},
			{`{"kind": "mnk.sweep", "params": {"ks": [0]}}`, 400, "ks 0"},
			{`{"kind": "mnk.sweep", "params": {"boards": ["3x3"], "chart": "svg"}}`, 400, "chart"},
			{`{"kind": "mnk.sweep", "params": {"algorithms": ["oracle"]}}`, 400, "algorithms oracle"},
			{`{"kind": "mnk.sweep", "params": {"node_budget": 0}}`, 400, "node_budget 0"},
			{`{"kind": "mnk.sweep", "params": {"cell_seconds": -1}}`, 400, "cell_seconds -1"},
			{`{"kind": "mnk.simulate", "params": {"games": 0}}`, 400, "games 0"},
			{`{"kind": "mnk.simulate", "params": {"x": "human"}}`, 400, "x: a simulation"},
			{`{"kind": "mnk.simulate", "params": {"games": 100000000, "games_per_task": 1}}`, 400,
				"games 100000000 games_per_task 1: 100,000,000 tasks, more than the 1,000,000 a job may have"},
			{`{"kind": "sudoku.solve", "params": {}}`, 400, `kind "sudoku.solve"`},
			{`{"kind": "nope"}`, 400, `kind "nope"`},
			{`{"kind": "mnk.count", "extra": 1}`, 400, `unknown field "extra"`},
			{`{"kind": `, 400, "malformed"},
			{``, 400, "empty"},
			{`{"kind": "mnk.count"} {}`, 400, "more than one"},
		} {
			w := do(t, s, "POST", "/api/jobs", c.body)
			if w.Code != c.code {
				t.Errorf("POST /api/jobs %s: %d %s, want %d", c.body, w.Code, w.Body, c.code)
				continue
			}
			if msg := apiErrorOf(t, w); !strings.Contains(msg, c.want) {
				t.Errorf("POST /api/jobs %s: error %q, want it to name %q", c.body, msg, c.want)
			}
		}
		for _, c := range []struct{ method, path string }{
			{"GET", "/api/jobs/20261201-120000-abcdef"},
			{"GET", "/api/jobs/no.such.job"},
			{"POST", "/api/jobs/20261201-120000-abcdef/cancel"},
			{"GET", "/api/jobs/20261201-120000-abcdef/chart.svg"},
			{"GET", "/api/jobs/events?id=a.b"},
		} {
			w := do(t, s, c.method, c.path, "")
			if w.Code != http.StatusNotFound {
				t.Errorf("%s %s: %d %s, want 404", c.method, c.path, w.Code, w.Body)
				continue
			}
			apiErrorOf(t, w)
		}
		// A page of another site cannot have a browser submit a job.
		req := httptest.NewRequest("POST", "http://localhost/api/jobs", strings.NewReader(`{"kind": "mnk.count"}`))
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code != http.StatusForbidden {
			t.Errorf("a cross-site POST /api/jobs: %d %s, want 403", w.Code, w.Body)
		}
		apiErrorOf(t, w)
		if w := do(t, s, "GET", "/jobs/20261201-120000-abcdef", ""); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "no job") {
			t.Errorf("GET /jobs/ of an unknown job: %d, want 404 and a page saying so", w.Code)
		}
	})

	t.Run("refused boards", func(t *testing.T) {
		// The table that the kinds and analyze mnk share: the same board,
		// refused with the kind's message, word for word.
		data, err := os.ReadFile("../../pkg/tasks/mnk/testdata/refused_boards.json")
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Kind   string          `json:"kind"`
			Params json.RawMessage `json:"params"`
			Error  string          `json:"error"`
		}
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			body := fmt.Sprintf(`{"kind": %q, "params": %s}`, c.Kind, c.Params)
			w := do(t, s, "POST", "/api/jobs", body)
			if w.Code != http.StatusBadRequest {
				t.Errorf("POST /api/jobs %s: %d %s, want 400", body, w.Code, w.Body)
				continue
			}
			if msg, want := apiErrorOf(t, w), c.Kind+" params: "+c.Error; msg != want {
				t.Errorf("POST /api/jobs %s: error %q, want %q", body, msg, want)
			}
		}
	})

	t.Run("sudoku", func(t *testing.T) {
		corpus := "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n" +
			"52...6.........7.13...........4..8..6......5...........418.........3..2...87.....\n" +
			"bad line\n"
		plain := upload(t, s, "puzzles.txt", []byte(corpus), "")
		if plain.Code != http.StatusAccepted {
			t.Fatalf("upload: %d %s, want 202", plain.Code, plain.Body)
		}
		var j job.Summary
		json.Unmarshal(plain.Body.Bytes(), &j)
		d := waitJob(t, s, j.ID)
		var rep sudoku.SolveReport
		if err := json.Unmarshal(d.Report, &rep); err != nil || d.State != "done" {
			t.Fatalf("sudoku job %s: %s, report %s (%v)", j.ID, d.State, d.Report, err)
		}
		if rep.Puzzles != 3 || rep.Unique != 2 || rep.Malformed != 1 || len(rep.Rejects) != 1 || rep.Rejects[0].File != "puzzles.txt" || rep.Rejects[0].Line != 3 {
			t.Errorf("report %s: want 3 puzzles, 2 unique, 1 malformed at puzzles.txt:3", d.Report)
		}
		// The same corpus gzipped is the same job: the text is uploaded.
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(corpus))
		zw.Close()
		w := upload(t, s, "puzzles.txt", gz.Bytes(), "")
		var j2 job.Summary
		json.Unmarshal(w.Body.Bytes(), &j2)
		if w.Code != http.StatusAccepted || string(j2.Params) != string(j.Params) {
			t.Errorf("gzipped upload: %d, params %s; want 202 and the plain file's %s", w.Code, j2.Params, j.Params)
		}
		waitJob(t, s, j2.ID)

		for _, c := range []struct {
			name, contentType string
			data              []byte
			chunk, want       string
		}{
			{"p.txt", "", []byte(corpus), "x", "chunk"},
			{"p.txt", "", []byte(corpus), "3001", "chunk"},
			{"p.txt.gz", "", gz.Bytes()[:gz.Len()-9], "", "damaged"},
			// The kind's refusal (tasks.ErrInvalid) names the line.
			{"g.txt", "", []byte(strings.Repeat(".", 81) + "\n123456789\n" + strings.Repeat("# c\n", 500_000)), "", "g.txt:1: the 2 puzzles from this line"},
			{"", "", nil, "", "no file"},
			{"", "application/json", []byte(`{}`), "", "multipart"},
		} {
			var w *httptest.ResponseRecorder
			if c.contentType != "" {
				req := httptest.NewRequest("POST", "http://localhost/api/jobs/sudoku", bytes.NewReader(c.data))
				req.Header.Set("Content-Type", c.contentType)
				w = httptest.NewRecorder()
				s.Handler().ServeHTTP(w, req)
			} else {
				w = upload(t, s, c.name, c.data, c.chunk)
			}
			if w.Code != http.StatusBadRequest {
				t.Errorf("upload %s chunk %q: %d %s, want 400", c.name, c.chunk, w.Code, w.Body)
				continue
			}
			if msg := apiErrorOf(t, w); !strings.Contains(msg, c.want) {
				t.Errorf("upload %s chunk %q: error %q, want it to name %q", c.name, c.chunk, msg, c.want)
			}
		}
	})

	t.Run("events", func(t *testing.T) {
		defer func(d time.Duration) { keepAlive = d }(keepAlive)
		keepAlive = 20 * time.Millisecond
		ended := make(chan struct{})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.Handler().ServeHTTP(w, r)
			if r.URL.Path == "/api/jobs/events" {
				close(ended)
			}
		}))
		defer ts.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/jobs/events", nil)
		req.Header.Set("Accept", "text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("GET /api/jobs/events: %d %s, want 200 text/event-stream", res.StatusCode, ct)
		}
		id := submit(t, s, "mnk.count", `{"rows": 2, "cols": 3, "k": 2}`)
		events := make(chan string)
		go func() {
			defer close(events)
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
				events <- sc.Text()
			}
		}()
		var done, kept bool
		timeout := time.After(20 * time.Second)
		for !done || !kept {
			select {
			case line, ok := <-events:
				if !ok {
					t.Fatal("the stream ended")
				}
				kept = kept || line == ": keep-alive"
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					var j job.Summary
					if err := json.Unmarshal([]byte(data), &j); err != nil {
						t.Fatalf("event data %q: %v", data, err)
					}
					done = done || j.ID == id && j.State == "done"
				}
			case <-timeout:
				t.Fatalf("after 20 s: job %s done %v, keep-alive %v; want both", id, done, kept)
			}
		}
		cancel() // the browser goes away: the handler ends
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Fatal("the events handler still runs 10 s after its client went away")
		}
		for range events {
		}
	})
}

// upload posts a corpus to /api/jobs/sudoku as a browser's form does
// (name "" leaves the file out).
func upload(t testing.TB, s *Server, name string, data []byte, chunk string) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(data)
	}
	if chunk != "" {
		mw.WriteField("chunk", chunk)
	}
	mw.Close()
	req := httptest.NewRequest("POST", "http://localhost/api/jobs/sudoku", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}
