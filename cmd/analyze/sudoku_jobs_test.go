package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/internal/web"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

// analyze sudoku solve FILE and the web's upload of FILE make the same job
// of the same text, plain or gzipped: the same kind and parameters (the
// same pieces, chunk and file name), since both go through the kind's
// submit side (sudoku.SubmitCorpus). The CLI leaves the pieces of a plain
// file in it and the web stores them, under the same names.
func TestSudokuSolveSubmitsAsTheWeb(t *testing.T) {
	text, _, err := infile.ReadFile("../../datasets/sudoku/top1465.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	text = append(text, "# a comment\n\nbad line\n"...)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir) // FILE as the CLI names it is the uploaded file's name
	// The reports that analyze prints are not what is compared.
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = devNull
	t.Cleanup(func() { os.Stdout = stdout; devNull.Close() })
	srv := newWebServer(t)
	for name, file := range map[string][]byte{"puzzles.txt": text, "puzzles.txt.gz": gz.Bytes()} {
		if err := os.WriteFile(name, file, 0o644); err != nil {
			t.Fatal(err)
		}
		data := filepath.Join(dir, "data-"+name)
		if err := newApp().RunContext(context.Background(), []string{"analyze", "sudoku", "solve", "--data", data, "-q", "--json", name}); err != nil {
			t.Fatalf("analyze sudoku solve %s: %v", name, err)
		}
		cli := storedSpec(t, data)
		w := uploadCorpus(t, srv, name, file)
		var got struct {
			Kind   string          `json:"kind"`
			Params json.RawMessage `json:"params"`
		}
		if w.Code != http.StatusAccepted || json.Unmarshal(w.Body.Bytes(), &got) != nil {
			t.Fatalf("upload %s: %d %s, want 202 and a job", name, w.Code, w.Body)
		}
		var cp, wp sudoku.SolveParams
		if err := json.Unmarshal(cli.Params, &cp); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got.Params, &wp); err != nil {
			t.Fatal(err)
		}
		if got.Kind != cli.Kind || !reflect.DeepEqual(wp, cp) || cp.Inputs[0].File != name || cp.Chunk != sudoku.AutoChunk(len(text)) {
			t.Errorf("%s: the web submitted %s %s, want what analyze submitted: %s %s (file %s, chunk %d)",
				name, got.Kind, got.Params, cli.Kind, cli.Params, name, sudoku.AutoChunk(len(text)))
		}
	}
}

// storedSpec is the spec of the one job of the embedded store in data.
func storedSpec(t *testing.T, data string) tasks.Spec {
	t.Helper()
	c, err := embedded.StartBare(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	jobs, err := c.Broker.Jobs().List(context.Background())
	if err != nil || len(jobs) != 1 {
		t.Fatalf("the jobs under %s: %d, %v; want 1", data, len(jobs), err)
	}
	return jobs[0].Spec
}

// newWebServer is analyze serve's server on an embedded cluster of its own.
func newWebServer(t *testing.T) *web.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Connect(ctx, client.Options{Data: t.TempDir(), Workers: 1})
	if err != nil {
		t.Fatalf("connect an embedded cluster: %v", err)
	}
	t.Cleanup(conn.Close)
	s, err := web.New(web.Options{Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// uploadCorpus posts data as the file name to the web's /api/jobs/sudoku,
// as a browser's form does.
func uploadCorpus(t *testing.T, s *web.Server, name string, data []byte) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	req := httptest.NewRequest("POST", "http://localhost/api/jobs/sudoku", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}
