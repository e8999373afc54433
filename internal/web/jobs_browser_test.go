package web

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// TestBrowserJobs submits a count from the form and reads its report,
// sees the job in the list kept live by the stream of events, and runs a
// small sweep whose page shows its chart.
func TestBrowserJobs(t *testing.T) {
	s := newJobsServer(t, 2)
	b := newBrowser(t, s)

	b.run("open /jobs", chromedp.Navigate(b.url+"/jobs"), chromedp.WaitVisible(`fieldset[data-kind="mnk.count"]`))
	b.screenshot("form")
	b.run("submit tic-tac-toe's count", chromedp.Click("#submit"), chromedp.WaitVisible("#report-body table"))
	if loc := get(b, "location", chromedp.Location()); !strings.Contains(loc, "/jobs/") {
		t.Errorf("after submitting: at %s, want the job's page", loc)
	}
	report := b.text("#report-body")
	for _, want := range []string{"255,168", "549,946", "draw"} {
		if !strings.Contains(report, want) {
			t.Errorf("count report %q: want %q in it", report, want)
		}
	}
	if state := b.text("#state"); state != "done" {
		t.Errorf("state %q, want done", state)
	}
	if eval[bool](b, `!document.querySelector("#cancel").hidden`) {
		t.Error("a done job offers to cancel it")
	}
	b.screenshot("count-report")

	b.run("back to the list", chromedp.Navigate(b.url+"/jobs"), chromedp.WaitVisible("#jobs-table tbody tr .state-done"))
	get(b, "the stream of events opens", chromedp.Poll[bool](`document.querySelector("#live").textContent.includes("live")`))
	if row := b.text("#jobs-table tbody tr"); !strings.Contains(row, "mnk.count") || !strings.Contains(row, "3x3 k=3") {
		t.Errorf("the list's row %q: want the count of 3x3 k=3", row)
	}
	b.screenshot("list")

	// A sweep of two cheap rungs on 3x3 (the form's defaults).
	b.run("submit a sweep",
		chromedp.Click(`//label[input[@value="mnk.sweep"]]`),
		chromedp.WaitVisible(`fieldset[data-kind="mnk.sweep"]`),
		chromedp.Click("#submit"),
		chromedp.WaitVisible("#chart"))
	width := get(b, "the chart loads", chromedp.Poll[int](`document.querySelector("#chart").complete && document.querySelector("#chart").naturalWidth`))
	if width <= 0 {
		t.Errorf("chart's natural width %d, want it drawn", width)
	}
	if rows := b.text("#report-body"); !strings.Contains(rows, "minimax") || !strings.Contains(rows, "alphabeta") {
		t.Errorf("sweep report %q: want the rows of minimax and alphabeta", rows)
	}
	b.screenshot("sweep-report")

	// A sweep that would run for a minute (minimax on 4x4, stopped by its
	// cell time), followed live and cancelled from its page.
	b.run("submit a long sweep",
		chromedp.Navigate(b.url+"/jobs"),
		chromedp.Click(`//label[input[@value="mnk.sweep"]]`),
		chromedp.SetValue(`fieldset[data-kind="mnk.sweep"] input[name=boards]`, "4x4"),
		chromedp.SetValue(`fieldset[data-kind="mnk.sweep"] input[name=ks]`, "4"),
		chromedp.SetValue(`fieldset[data-kind="mnk.sweep"] input[name=node_budget]`, "1000G"),
		chromedp.Click(`input[name=algorithms][value=alphabeta]`),
		chromedp.Click("#submit"),
		chromedp.WaitVisible("#state .state-running"))
	b.screenshot("running")
	// The badge follows the record's event; the report's text follows
	// the job's detail, read after it: wait for both.
	b.run("cancel it", chromedp.Click("#cancel"), chromedp.WaitVisible("#state .state-cancelled"),
		chromedp.WaitVisible(`//div[@id="report-body"]/p[contains(., "cancelled")]`))
	if msg := b.text("#report-body"); !strings.Contains(msg, "cancelled") {
		t.Errorf("report of a cancelled job %q, want it to say the job was cancelled", msg)
	}
	b.screenshot("cancelled")

	// A Sudoku corpus uploaded from the form.
	corpus := filepath.Join(t.TempDir(), "two.txt")
	if err := os.WriteFile(corpus, []byte("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\nnot a puzzle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.run("upload a corpus",
		chromedp.Navigate(b.url+"/jobs"),
		chromedp.Click(`//label[input[@value="sudoku.solve"]]`),
		chromedp.WaitVisible(`fieldset[data-kind="sudoku.solve"]`),
		chromedp.SetUploadFiles(`input[name=file]`, []string{corpus}),
		chromedp.Click("#submit"),
		chromedp.WaitVisible("#report-body table"))
	report = b.text("#report-body")
	for _, want := range []string{"two.txt", "malformed", "two.txt:2"} {
		if !strings.Contains(report, want) {
			t.Errorf("corpus report %q: want %q in it", report, want)
		}
	}
	b.screenshot("sudoku-report")
}

// TestBrowserJobStall: a job on a cluster with no worker says so on its
// page and in the list, as analyze's progress line does.
func TestBrowserJobStall(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ns, err := embedded.NewServer(filepath.Join(dir, "nats"), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	// The streams and buckets, as a coordinator sets them up; then no
	// coordinator and no worker.
	setup, err := broker.Open(ctx, broker.Endpoint{URL: ns.ClientURL()}, broker.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	setup.Close()
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	conn, err := client.Connect(ctx, client.Options{NATS: ns.ClientURL(), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	j, err := conn.Submit(ctx, tasks.Spec{Kind: "mnk.count", Params: json.RawMessage(`{"rows":3,"cols":3,"k":3}`)})
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, &Options{Conn: conn, Log: log, StallAfter: time.Second})
	b := newBrowser(t, s)
	b.run("open the job", chromedp.Navigate(b.url+"/jobs/"+j.ID),
		chromedp.WaitVisible(`//span[@id="stall"][contains(., "no worker has taken a task for")]`))
	if note := b.text("#stall"); !strings.Contains(note, "(0 workers seen)") {
		t.Errorf("the job's stall note %q, want (0 workers seen)", note)
	}
	b.screenshot("stalled")
	b.run("the list", chromedp.Navigate(b.url+"/jobs"),
		chromedp.WaitVisible(`//td//span[@class="stall"][contains(., "no worker has taken a task for")]`))
}
