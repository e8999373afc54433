package web

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
)

// FuzzJobsAPI sends the jobs API requests of any path, content type and
// body: none may fail with a 5xx, a refused one answers {"error"} and
// leaves the jobs as they were, and an accepted submission is a job that
// exists (it is cancelled at once, to keep the cluster free).
func FuzzJobsAPI(f *testing.F) {
	s := newJobsServer(f, 1)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "p.txt")
	fw.Write([]byte("52...6.........7.13...........4..8..6......5...........418.........3..2...87.....\n"))
	mw.WriteField("chunk", "10")
	mw.Close()
	for _, seed := range []struct {
		post              bool
		path, ctype, body string
	}{
		{true, "", "application/json", `{"kind": "mnk.count", "params": {"rows": 2, "cols": 2}}`},
		{true, "", "application/json", `{"kind": "mnk.solve", "params": {"method": "pns", "rows": 3, "cols": 3}}`},
		{true, "", "application/json", `{"kind": "mnk.simulate", "params": {"games": 5, "x": "perfect"}}`},
		{true, "", "application/json", `{"kind": "mnk.sweep", "params": {"boards": ["2x2"], "ks": [2], "algorithms": ["minimax"]}}`},
		{true, "", "application/json", `{"kind": "mnk.sweep", "params": {"boards": ["3x3", "3x3"], "ks": [9, 2], "node_budget": -1}}`},
		{true, "", "application/json", `{"kind": "mnk.count", "params": {"rows": 1e400}}`},
		{true, "", "application/json", `{"kind": 7}`},
		{true, "", "application/json", `{"kind": "mnk.count", "params": "3x3"}`},
		{true, "", "application/json", `[]`},
		{true, "", "application/json", "{\"kind\": \"\xff\"}"},
		{true, "/sudoku", mw.FormDataContentType(), form.String()},
		{true, "/sudoku", mw.FormDataContentType(), form.String()[:form.Len()/2]},
		{true, "/sudoku", "multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\x00/..\"\r\n\r\n\x1f\x8b\r\n--x--\r\n"},
		{true, "/sudoku", "text/plain", "puzzles"},
		{true, "/20261201-120000-abcdef/cancel", "", ""},
		{true, "/../cancel", "", ""},
		{false, "", "", ""},
		{false, "/events", "", ""},
		{false, "/events?id=%00", "", ""},
		{false, "/20261201-120000-abcdef", "", ""},
		{false, "/x/chart.svg", "", ""},
		{false, "/" + strings.Repeat("a", 100), "", ""},
	} {
		f.Add(seed.post, seed.path, seed.ctype, []byte(seed.body))
	}
	jobs := func(t *testing.T) int {
		w := do(t, s, "GET", "/api/jobs", "")
		var list struct{ Jobs []job.Summary }
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &list) != nil {
			t.Fatalf("GET /api/jobs: %d %s", w.Code, w.Body)
		}
		return len(list.Jobs)
	}
	f.Fuzz(func(t *testing.T, post bool, path, ctype string, body []byte) {
		method := "GET"
		if post {
			method = "POST"
		}
		target := "/api/jobs" + path
		if !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "?") {
			target = "/api/jobs/" + path
		}
		req, err := http.NewRequest(method, "http://localhost"+target, bytes.NewReader(body))
		if err != nil {
			return // not a request a client can send
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		req = req.WithContext(ctx) // a stream of events ends with it
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		before := jobs(t)
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s, want no 5xx", method, target, body, w.Code, w.Body)
		}
		if w.Code >= 400 {
			var e apiError
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %s: %d %q, want {\"error\": ...}", method, target, w.Code, w.Body)
			}
			if after := jobs(t); after != before {
				t.Fatalf("%s %s refused (%d) but the jobs went from %d to %d", method, target, w.Code, before, after)
			}
			return
		}
		if w.Code == http.StatusAccepted {
			var j job.Summary
			if err := json.Unmarshal(w.Body.Bytes(), &j); err != nil || j.ID == "" {
				t.Fatalf("%s %s: accepted with %q, want a job", method, target, w.Body)
			}
			if g := do(t, s, "GET", "/api/jobs/"+j.ID, ""); g.Code != http.StatusOK {
				t.Fatalf("job %s accepted, then GET: %d %s", j.ID, g.Code, g.Body)
			}
			if c := do(t, s, "POST", "/api/jobs/"+j.ID+"/cancel", ""); c.Code != http.StatusOK && c.Code != http.StatusConflict {
				t.Fatalf("cancel %s: %d %s, want 200 or 409", j.ID, c.Code, c.Body)
			}
		}
	})
}
