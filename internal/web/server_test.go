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
	req := httptest.NewRequest(method, path, r)
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
		req := httptest.NewRequest("POST", "/api/mnk/games", strings.NewReader(body))
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
	req := httptest.NewRequest("POST", "/api/mnk/games", strings.NewReader(body))
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
