package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newTestServer returns a Server without a cluster (o may be nil), logging
// to the test.
func newTestServer(t testing.TB, o *Options) *Server {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(testWriter{t}, nil))
	}
	s, err := New(*o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// do sends a request to s and returns the response.
func do(t testing.TB, s *Server, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://localhost"+path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}

// apiErrorOf decodes an error answer, failing unless it is one.
func apiErrorOf(t testing.TB, w *httptest.ResponseRecorder) string {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" {
		t.Fatalf("answer %d %q: want {\"error\": ...}", w.Code, w.Body.String())
	}
	return e.Error
}

func TestPagesAndHeaders(t *testing.T) {
	s := newTestServer(t, nil)
	for _, path := range []string{"/", "/play", "/nineboard", "/sudoku", "/jobs", "/static/wopr.js", "/static/style.css"} {
		w := do(t, s, "GET", path, "")
		if w.Code != http.StatusOK {
			t.Errorf("GET %s: %d, want 200", path, w.Code)
			continue
		}
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy %q, want only the server's own scripts", path, csp)
		}
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options %q, want nosniff", path, got)
		}
		if strings.HasSuffix(path, ".js") || strings.HasPrefix(path, "/static") {
			continue
		}
		body := w.Body.String()
		// No inline script or style: the policy would block it.
		if strings.Contains(body, "<script>") || strings.Contains(body, " style=") || strings.Contains(body, "<style") {
			t.Errorf("GET %s: inline script or style in the page", path)
		}
		if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
			t.Errorf("GET %s: the page names another site", path)
		}
	}
	if w := do(t, s, "GET", "/nope", ""); w.Code != http.StatusNotFound {
		t.Errorf("GET /nope: %d, want 404", w.Code)
	}
	w := do(t, s, "GET", "/api/nope", "")
	if w.Code != http.StatusNotFound {
		t.Errorf("GET /api/nope: %d, want 404", w.Code)
	}
	apiErrorOf(t, w)
}

func TestGameStoreBoundedAndExpires(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := newGameStore[int](3, time.Hour, clock)
	a := st.add(1)
	now = now.Add(time.Second)
	b := st.add(2)
	now = now.Add(time.Second)
	c := st.add(3)
	now = now.Add(time.Second)
	if _, ok := st.get(a); !ok { // a is now the most recently used
		t.Fatal("game a lost before the store was full")
	}
	now = now.Add(time.Second)
	d := st.add(4)
	if _, ok := st.get(b); ok {
		t.Error("b, the least recently used, kept when d pushed it out")
	}
	for _, id := range []string{a, c, d} {
		if _, ok := st.get(id); !ok {
			t.Errorf("game %s lost", id)
		}
	}
	if n := st.len(); n != 3 {
		t.Errorf("%d games kept, want 3", n)
	}
	now = now.Add(2 * time.Hour)
	if _, ok := st.get(a); ok {
		t.Error("a game idle for 2 hours kept (idle limit 1 hour)")
	}
	st.add(5)
	if n := st.len(); n != 1 {
		t.Errorf("%d games kept after the idle ones expired, want 1", n)
	}
	if _, ok := st.get("not-an-id"); ok {
		t.Error("an unknown id found")
	}
}

// A page of another site cannot have a browser change anything: a move,
// a new game, a job. The server's own pages and programs without a
// browser's Sec-Fetch-Site or Origin (curl, tests) can.
func TestCrossSiteRequestsRefused(t *testing.T) {
	s := newTestServer(t, nil)
	body := `{"rows": 3, "cols": 3, "k": 3, "human": "x", "opponent": "random"}`
	for _, site := range []string{"cross-site", "same-site"} {
		req := httptest.NewRequest("POST", "http://localhost/api/mnk/games", strings.NewReader(body))
		req.Header.Set("Sec-Fetch-Site", site)
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code != http.StatusForbidden {
			t.Errorf("POST /api/mnk/games from a %s page: %d, want 403", site, w.Code)
		}
		apiErrorOf(t, w)
	}
	if n := s.mnk.len(); n != 0 {
		t.Errorf("%d games made by refused requests", n)
	}
	req := httptest.NewRequest("POST", "http://localhost/api/mnk/games", strings.NewReader(body))
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	if w.Code != http.StatusCreated {
		t.Errorf("POST /api/mnk/games from the server's own page: %d %s, want 201", w.Code, w.Body)
	}
	if w := do(t, s, "POST", "/api/mnk/games", body); w.Code != http.StatusCreated {
		t.Errorf("POST /api/mnk/games without a browser's headers: %d %s, want 201", w.Code, w.Body)
	}
}

// The API answers as API users expect: a method the path does not take is
// 405 with Allow; a path with an empty segment is a JSON 404, not a
// redirect with an HTML body; JSON is not HTML-escaped.
func TestAPIMethodsAndPaths(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{}`)
	for _, c := range []struct {
		method, path string
		status       int
		allow, error string
	}{
		{"GET", "/api/mnk/games", http.StatusMethodNotAllowed, "POST", "GET /api/mnk/games: method not allowed; the endpoint takes POST"},
		{"DELETE", "/api/mnk/games/" + st.ID, http.StatusMethodNotAllowed, "GET, HEAD", ""},
		{"PUT", "/api/mnk/games/" + st.ID + "/moves", http.StatusMethodNotAllowed, "POST", ""},
		{"POST", "/api/jobs/x/chart.svg", http.StatusMethodNotAllowed, "GET, HEAD", ""},
		{"POST", "/api/mnk/games//moves", http.StatusNotFound, "", "no API endpoint POST /api/mnk/games//moves: the path has an empty, . or .. segment"},
		{"GET", "/api/mnk/../jobs", http.StatusNotFound, "", "the path has an empty, . or .. segment"},
		{"GET", "/api/nothing", http.StatusNotFound, "", "no API endpoint GET /api/nothing"},
	} {
		w := do(t, s, c.method, c.path, "")
		if w.Code != c.status || w.Header().Get("Allow") != c.allow || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d, Allow %q, %s; want %d, Allow %q, JSON", c.method, c.path, w.Code, w.Header().Get("Allow"), w.Header().Get("Content-Type"), c.status, c.allow)
			continue
		}
		if msg := apiErrorOf(t, w); !strings.Contains(msg, c.error) {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, msg, c.error)
		}
	}
	w := do(t, s, "POST", "/api/mnk/games", `{"opponent": "a<b&c"}`)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `a<b&c`) {
		t.Errorf("an error naming a<b&c: %d %s; want 400 with the text as sent", w.Code, w.Body)
	}
}

// POST /api/mnk/games takes analyze play's defaults: {} is 3x3 with k 3, a
// side left out is the other's, k is the CLI's default for the board; an
// error names what was sent.
func TestMNKCreateDefaults(t *testing.T) {
	s := newTestServer(t, nil)
	for _, c := range []struct {
		body             string
		rows, cols, k    int
		opponentIsEngine bool
	}{
		{`{}`, 3, 3, 3, false},
		{`{"rows": 4}`, 4, 4, 4, false},
		{`{"cols": 2, "rows": 3}`, 3, 2, 2, false},
		{`{"rows": 15, "cols": 15}`, 15, 15, 5, true},
		{`{"rows": 3, "cols": 5, "k": 3, "opponent": "random"}`, 3, 5, 3, false},
	} {
		st := newMNK(t, s, c.body)
		if st.Rows != c.rows || st.Cols != c.cols || st.K != c.k || strings.HasPrefix(st.Opponent, "engine") != c.opponentIsEngine {
			t.Errorf("%s: %dx%d k=%d against %s; want %dx%d k=%d", c.body, st.Rows, st.Cols, st.K, st.Opponent, c.rows, c.cols, c.k)
		}
	}
	for _, c := range []struct{ body, want string }{
		{`{"k": 0}`, "k 0: want 1 to 3 (the longer side of 3x3)"},
		{`{"rows": 0}`, "rows 0: want 1 to 15"},
		{`{"rows": 4, "k": 9}`, "k 9: want 1 to 4 (the longer side of 4x4)"},
	} {
		w := do(t, s, "POST", "/api/mnk/games", c.body)
		if msg := apiErrorOf(t, w); w.Code != http.StatusBadRequest || msg != c.want {
			t.Errorf("%s: %d %q; want 400 %q", c.body, w.Code, msg, c.want)
		}
	}
}
