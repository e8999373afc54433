package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/job"
)

// send sends a request for url (with its host) to s, set changing it
// first, and returns the response.
func send(t testing.TB, s *Server, method, url, body string, set func(*http.Request)) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if set != nil {
		set(req)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}

// multipartUpload returns a corpus upload's body and content type.
func multipartUpload(t testing.TB) (string, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "top.txt")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("003020600900305001001806400008102900700000008006708200002609500800203009005010300\n"))
	mw.Close()
	return body.String(), mw.FormDataContentType()
}

// A page whose name an attacker rebinds to the server's address (DNS
// rebinding) sends its own name in Host: every route refuses it, pages,
// API, event streams and uploads alike, with 421 naming the host.
func TestHostRebindingRefused(t *testing.T) {
	s := newTestServer(t, nil)
	upload, uploadType := multipartUpload(t)
	routes := []struct{ method, path, body, ctype string }{
		{"GET", "/", "", ""},
		{"GET", "/play", "", ""},
		{"GET", "/jobs", "", ""},
		{"GET", "/static/wopr.js", "", ""},
		{"GET", "/api/jobs", "", ""},
		{"GET", "/api/jobs/events", "", ""},
		{"POST", "/api/mnk/games", `{}`, "application/json"},
		{"POST", "/api/jobs", `{"kind": "mnk.count"}`, "application/json"},
		{"POST", "/api/jobs/sudoku", upload, uploadType},
	}
	for _, host := range []string{"rebind.evil.example", "rebind.evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example:8080"} {
		for _, r := range routes {
			w := send(t, s, r.method, "http://"+host+r.path, r.body, func(req *http.Request) {
				if r.ctype != "" {
					req.Header.Set("Content-Type", r.ctype)
				}
			})
			if w.Code != http.StatusMisdirectedRequest {
				t.Errorf("%s %s with Host %s: %d, want 421", r.method, r.path, host, w.Code)
				continue
			}
			if msg := apiErrorOf(t, w); !strings.Contains(msg, fmt.Sprintf("%q", host)) || strings.Contains(msg, "\n") {
				t.Errorf("%s %s with Host %s: error %q, want one line naming the host", r.method, r.path, host, msg)
			}
		}
	}
	if n := s.mnk.len(); n != 0 {
		t.Errorf("%d games made by refused requests", n)
	}
	for _, host := range []string{"localhost", "localhost:8080", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:8080", "localhost."} {
		for _, path := range []string{"/", "/static/wopr.js"} {
			if w := send(t, s, "GET", "http://"+host+path, "", nil); w.Code != http.StatusOK {
				t.Errorf("GET %s with Host %s: %d %s, want 200", path, host, w.Code, w.Body)
			}
		}
		if w := send(t, s, "POST", "http://"+host+"/api/mnk/games", `{}`, nil); w.Code != http.StatusCreated {
			t.Errorf("POST /api/mnk/games with Host %s: %d %s, want 201", host, w.Code, w.Body)
		}
	}
}

// --allowed-hosts adds names; the address a request arrived at is the
// server's own name too (a server on every interface reached by address).
func TestHostAllowedHosts(t *testing.T) {
	s := newTestServer(t, &Options{AllowedHosts: []string{"wopr.example.com", "Games.Example.org."}})
	for host, want := range map[string]int{
		"wopr.example.com":      http.StatusOK,
		"wopr.example.com:8443": http.StatusOK,
		"WOPR.example.com":      http.StatusOK,
		"games.example.org":     http.StatusOK,
		"localhost:8080":        http.StatusOK,
		"example.com":           http.StatusMisdirectedRequest,
		"evil.wopr.example.com": http.StatusMisdirectedRequest,
		"192.0.2.7:8080":        http.StatusMisdirectedRequest,
	} {
		if w := send(t, s, "GET", "http://"+host+"/play", "", nil); w.Code != want {
			t.Errorf("GET /play with Host %s: %d, want %d", host, w.Code, want)
		}
	}
	arrivedAt := func(ip string) func(*http.Request) {
		return func(r *http.Request) {
			*r = *r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.ParseIP(ip), Port: 8080}))
		}
	}
	if w := send(t, s, "GET", "http://192.0.2.7:8080/play", "", arrivedAt("192.0.2.7")); w.Code != http.StatusOK {
		t.Errorf("GET /play at 192.0.2.7 with its address as Host: %d, want 200", w.Code)
	}
	if w := send(t, s, "GET", "http://192.0.2.8:8080/play", "", arrivedAt("192.0.2.7")); w.Code != http.StatusMisdirectedRequest {
		t.Errorf("GET /play at 192.0.2.7 with Host 192.0.2.8: %d, want 421", w.Code)
	}
	if _, err := New(Options{AllowedHosts: []string{"a b"}}); err == nil {
		t.Error("New with allowed host \"a b\": no error")
	}
}

func sumOf(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }

const (
	testToken   = "0123456789abcdef0123456789abcdef"
	readToken   = "read-read-read-read-read-read-00"
	submitToken = "submit-submit-submit-submit-0000"
)

func bearer(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func login(name, token string) func(*http.Request) {
	return func(r *http.Request) { r.SetBasicAuth(name, token) }
}

// With authentication every route but /healthz wants a token or a user's
// login (401 and a browser's login prompt without); a user with the role
// read sees everything but may not submit, upload or cancel (403), one
// with the role submit may.
func TestAuthRoles(t *testing.T) {
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Connect(ctx, client.Options{Data: t.TempDir(), Workers: 1, Log: log})
	if err != nil {
		t.Fatalf("connect an embedded cluster: %v", err)
	}
	t.Cleanup(conn.Close)
	users, err := ParseUsers(strings.NewReader(fmt.Sprintf("# name role token\nalice read sha256:%x\n\nbob   submit sha256:%x\n", sumOf(readToken), sumOf(submitToken))), "users")
	if err != nil {
		t.Fatal(err)
	}
	auth, err := NewAuth(testToken, users)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, &Options{Conn: conn, Log: log, Auth: auth})
	const base = "http://localhost"

	for _, path := range []string{"/", "/jobs", "/static/wopr.js", "/api/jobs", "/api/jobs/events", "/api/workers"} {
		for what, set := range map[string]func(*http.Request){
			"no credentials":  nil,
			"a wrong token":   bearer(testToken + "x"),
			"a wrong login":   login("alice", submitToken),
			"an unknown user": login("carol", readToken),
			"an empty token":  bearer(""),
		} {
			w := send(t, s, "GET", base+path, "", set)
			if w.Code != http.StatusUnauthorized || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Basic ") {
				t.Errorf("GET %s with %s: %d, WWW-Authenticate %q; want 401 and a login prompt", path, what, w.Code, w.Header().Get("WWW-Authenticate"))
			}
		}
	}
	if w := send(t, s, "POST", base+"/api/jobs", `{"kind": "mnk.count"}`, nil); w.Code != http.StatusUnauthorized {
		t.Errorf("POST /api/jobs without credentials: %d %s, want 401", w.Code, w.Body)
	}
	if w := send(t, s, "GET", base+"/healthz", "", nil); w.Code != http.StatusOK {
		t.Errorf("GET /healthz without credentials: %d, want 200", w.Code)
	}

	// Everyone who came in reads.
	for what, set := range map[string]func(*http.Request){
		"the token":            bearer(testToken),
		"the token in a login": login("anyone", testToken),
		"alice's token":        bearer(readToken),
		"alice's login":        login("alice", readToken),
		"bob's login":          login("bob", submitToken),
		"bob's token, bearer":  bearer(submitToken),
	} {
		for _, path := range []string{"/", "/jobs", "/static/wopr.js", "/api/jobs", "/api/workers"} {
			if w := send(t, s, "GET", base+path, "", set); w.Code != http.StatusOK {
				t.Errorf("GET %s with %s: %d %s, want 200", path, what, w.Code, w.Body)
			}
		}
	}

	// The role read submits, uploads and cancels nothing.
	upload, uploadType := multipartUpload(t)
	withType := func(set func(*http.Request), ctype string) func(*http.Request) {
		return func(r *http.Request) { set(r); r.Header.Set("Content-Type", ctype) }
	}
	for what, set := range map[string]func(*http.Request){"alice's login": login("alice", readToken), "alice's token": bearer(readToken)} {
		if w := send(t, s, "POST", base+"/api/jobs", `{"kind": "mnk.count"}`, set); w.Code != http.StatusForbidden || !strings.Contains(apiErrorOf(t, w), "alice has the role read") {
			t.Errorf("POST /api/jobs with %s: %d %s, want 403 naming the role", what, w.Code, w.Body)
		}
		if w := send(t, s, "POST", base+"/api/jobs/sudoku", upload, withType(set, uploadType)); w.Code != http.StatusForbidden {
			t.Errorf("POST /api/jobs/sudoku with %s: %d %s, want 403", what, w.Code, w.Body)
		}
	}
	if jobs, err := conn.Jobs(ctx); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs after refused submissions: %d (%v), want none", len(jobs), err)
	}

	// The role submit, and the token, submit, upload and cancel.
	w := send(t, s, "POST", base+"/api/jobs", `{"kind": "mnk.count", "params": {"rows": 4, "cols": 4, "k": 4}}`, login("bob", submitToken))
	if w.Code != http.StatusAccepted {
		t.Fatalf("POST /api/jobs with bob's login: %d %s, want 202", w.Code, w.Body)
	}
	id := decode[job.Summary](t, w, http.StatusAccepted).ID
	if w := send(t, s, "POST", base+"/api/jobs/"+id+"/cancel", "", login("alice", readToken)); w.Code != http.StatusForbidden {
		t.Errorf("POST /api/jobs/%s/cancel with alice's login: %d %s, want 403", id, w.Code, w.Body)
	}
	if w := send(t, s, "POST", base+"/api/jobs/"+id+"/cancel", "", bearer(testToken)); w.Code != http.StatusOK && w.Code != http.StatusConflict {
		t.Errorf("POST /api/jobs/%s/cancel with the token: %d %s, want 200 (or 409 if it was done)", id, w.Code, w.Body)
	}
	if w := send(t, s, "POST", base+"/api/jobs/sudoku", upload, withType(bearer(submitToken), uploadType)); w.Code != http.StatusAccepted {
		t.Errorf("POST /api/jobs/sudoku with bob's token: %d %s, want 202", w.Code, w.Body)
	}
	// The cross-origin check stays: a logged-in browser on another site's
	// page changes nothing.
	crossSite := func(r *http.Request) { login("bob", submitToken)(r); r.Header.Set("Sec-Fetch-Site", "cross-site") }
	if w := send(t, s, "POST", base+"/api/jobs", `{"kind": "mnk.count"}`, crossSite); w.Code != http.StatusForbidden {
		t.Errorf("POST /api/jobs with bob's login from another site: %d %s, want 403", w.Code, w.Body)
	}
}

func TestParseUsersErrors(t *testing.T) {
	sum := fmt.Sprintf("sha256:%x", sumOf(readToken))
	for text, want := range map[string]string{
		"alice read":                                  "users:1: 2 fields, want 3",
		"alice admin " + sum:                          `users:1: role "admin": want read or submit`,
		"# x\nalice read sha256:00":                   "users:2: secret",
		"alice read " + sum[7:]:                       "users:1: secret",
		"a:b read " + sum:                             "colon",
		"alice read " + sum + "\nalice submit " + sum: `users:2: user "alice" given twice`,
		"# nobody\n":                                  "users: no users",
	} {
		if _, err := ParseUsers(strings.NewReader(text), "users"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseUsers(%q): %v, want %q", text, err, want)
		}
	}
	if _, err := ParseToken([]byte("short\n"), "token"); err == nil || !strings.Contains(err.Error(), "want at least 16") {
		t.Errorf("ParseToken(short): %v, want a refusal", err)
	}
	if tok, err := ParseToken([]byte("  "+testToken+"  \nsecond line\n"), "token"); err != nil || tok != testToken {
		t.Errorf("ParseToken: %q, %v; want %q", tok, err, testToken)
	}
}
