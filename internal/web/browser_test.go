package web

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser tests drive the pages in headless Chromium: Debian's
// chromium (.ci/run installs it), or the one WOPR_CHROMIUM names. They
// never download a browser.
var screenshots = flag.String("screenshots", "", "keep the browser tests' screenshots under `DIR`/TestName (default: a temporary directory, removed)")

// chromiumPath finds the browser.
func chromiumPath() (string, error) {
	if p := os.Getenv("WOPR_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on PATH (install Debian's chromium, as .ci/run does, or set WOPR_CHROMIUM)")
}

// browser is a page of headless Chromium open on a test server.
type browser struct {
	t    *testing.T
	ctx  context.Context
	url  string // the server's, without a trailing slash
	dir  string // screenshots
	shot int
}

// newBrowser starts a test server for s and a browser. It fails the test
// when no browser is installed: the browser tests are part of the suite.
func newBrowser(t *testing.T, s *Server) *browser {
	t.Helper()
	path, err := chromiumPath()
	if err != nil {
		if os.Getenv("WOPR_SKIP_BROWSER") != "" {
			t.Skipf("WOPR_SKIP_BROWSER is set: %v", err)
		}
		t.Fatalf("%v; WOPR_SKIP_BROWSER=1 skips the browser tests", err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true), // CI runs as root
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1200, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	var ctx context.Context
	for attempt := 1; ; attempt++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelCtx := chromedp.NewContext(actx)
		// One deadline for the whole test's browsing: a page that never
		// shows what a test waits for fails it rather than hanging.
		bctx, cancelTimeout := context.WithTimeout(bctx, 3*time.Minute)
		stop := func() { cancelTimeout(); cancelCtx(); cancelAlloc() }
		err := chromedp.Do(bctx)
		if err == nil {
			t.Cleanup(stop)
			ctx = bctx
			break
		}
		stop()
		// Chromium 148 on Zen 5 (Debian's build, 2026-12-05) sometimes
		// exits before it listens: 4 of about 210 starts under chromedp
		// that day, none of 60 started alone with the same flags. Its own
		// failure, not the page's, so it is started again, twice at most.
		if attempt == 3 || !strings.Contains(err.Error(), "chrome failed to start") {
			t.Fatalf("start %s: %v", path, err)
		}
		t.Logf("start %s, attempt %d: %v; starting it again", path, attempt, err)
	}
	dir := t.TempDir()
	if *screenshots != "" {
		dir = filepath.Join(*screenshots, regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &browser{t: t, ctx: ctx, url: strings.TrimSuffix(ts.URL, "/"), dir: dir}
}

// run runs steps and fails the test (with a screenshot) on an error.
func (b *browser) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.screenshot("failed")
		b.t.Fatalf("%s: %v", what, err)
	}
}

// get runs one action that returns a value, failing the test on an error.
func get[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.screenshot("failed")
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// text is the text of the element sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return get(b, "text of "+sel, chromedp.Text(sel))
}

// eval evaluates a JavaScript expression.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	return get(b, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// screenshot saves the page as NN-name.png in the test's directory.
func (b *browser) screenshot(name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	b.shot++
	path := filepath.Join(b.dir, fmt.Sprintf("%02d-%s.png", b.shot, name))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	return path
}

// TestBrowserOverview opens the overview and follows its links to each
// page.
func TestBrowserOverview(t *testing.T) {
	s := newTestServer(t, nil)
	b := newBrowser(t, s)
	b.run("open /", chromedp.Navigate(b.url+"/"), chromedp.WaitVisible(".cards"))
	if title := get(b, "title", chromedp.Title()); title != "wopr · wopr" {
		t.Errorf("title %q, want %q", title, "wopr · wopr")
	}
	b.screenshot("overview")
	for _, page := range []string{"play", "nineboard", "sudoku", "jobs"} {
		b.run("follow "+page, chromedp.Navigate(b.url+"/"), chromedp.WaitVisible(".cards"),
			chromedp.Click(`.card[href="/`+page+`"]`), chromedp.WaitVisible(`nav a[aria-current=page]`))
		if current := b.text(`nav a[aria-current=page]`); current == "" {
			t.Errorf("%s: no navigation entry marked current", page)
		}
	}
}
