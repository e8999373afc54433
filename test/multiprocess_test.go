// Package test holds wopr's end-to-end tests: the real binaries (analyze,
// coordinator, worker) and a real nats-server built from the module, as
// separate processes on 127.0.0.1.
//
// Under -race these tests skip, each saying why (runsBinaries): the code
// they test runs in those binaries, which are built without the race
// detector, so a race pass would watch only the harness; the packages'
// own tests put the code under the detector in process. The tests of
// this package that need no binary run under -race too.
package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// bin is the directory with the binaries TestMain builds.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wopr-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	// Under -race every test that would run them skips (runsBinaries).
	if !race.Enabled {
		// Readable by any user, for a test that runs a binary as nobody.
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		build := exec.Command("go", "build", "-o", dir,
			"github.com/woprlabs/wopr/cmd/analyze", "github.com/woprlabs/wopr/cmd/coordinator",
			"github.com/woprlabs/wopr/cmd/worker", "github.com/nats-io/nats-server/v2")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build binaries:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the path of a binary that TestMain built. go test caches
// this package's results by the packages it imports, which are not all of
// those in the binaries; the files a test examines are part of the cache
// key too, so the first call examines every source file of the binaries:
// a change to any of them runs the tests again.
func binary(name string) string {
	if race.Enabled {
		panic("test: " + name + " run under -race by a test that does not call runsBinaries first")
	}
	sourcesSeen.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Dir(filepath.Dir(file))
		for _, dir := range []string{"cmd", "internal", "pkg"} {
			_ = filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
					_, _ = os.Stat(p)
				}
				return nil
			})
		}
		_, _ = os.Stat(filepath.Join(root, "go.mod"))
		_, _ = os.Stat(filepath.Join(root, "go.sum"))
	})
	return filepath.Join(bin, name)
}

var sourcesSeen sync.Once

// runsBinaries starts every test (and benchmark) that runs a binary
// TestMain builds. Under -race it skips the test: the binaries are built
// without the race detector, which would watch only this process's side
// of the test. The test runs in the pass without -race (.ci/run's first).
func runsBinaries(tb testing.TB) {
	tb.Helper()
	race.Skip(tb, "the code under test runs in binaries built without the race detector; go test without -race runs this test")
}

// syncBuffer is a bytes.Buffer safe for a process writing and a test reading.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type proc struct {
	name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

// start runs a long-lived binary; it is killed when the test ends, and its
// output is shown if the test failed.
func start(t testing.TB, name string, args ...string) *proc {
	t.Helper()
	return startEnv(t, nil, name, args...)
}

// startEnv is start with variables added to the environment.
func startEnv(t testing.TB, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(binary(strings.Fields(name)[0]), args...)
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("--- output of %s:\n%s", p.name, p.out.String())
		}
	})
	return p
}

// signal sends sig and waits for the process to exit.
func (p *proc) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
		return p.err
	case <-time.After(time.Minute):
		t.Fatalf("%s did not exit within a minute of %v", p.name, sig)
		return nil
	}
}

// run runs a command line to its end and returns stdout.
func run(t testing.TB, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(name), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%s %s: %w\nstderr: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), err
}

// startNATS starts a real nats-server with JetStream on a free port of
// 127.0.0.1 and returns its URL.
func startNATS(t *testing.T) string {
	t.Helper()
	url, _ := startNATSAt(t, filepath.Join(t.TempDir(), "js"), "-1")
	return url
}

// startNATSAt starts a nats-server with its JetStream store in storeDir on
// port ("-1": a free one) and returns its URL and process.
func startNATSAt(t testing.TB, storeDir, port string) (string, *proc) {
	t.Helper()
	dir := t.TempDir() // for the ports file alone
	p := start(t, "nats-server", "-a", "127.0.0.1", "-p", port, "-js", "-sd", storeDir, "--ports_file_dir", dir)
	return natsURL(t, p, dir), p
}

// natsURL waits for the nats-server p to write its ports file in dir and
// returns its client URL.
func natsURL(t testing.TB, p *proc, dir string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ports"))
		if len(files) == 1 {
			data, err := os.ReadFile(files[0])
			var ports struct {
				Nats []string `json:"nats"`
			}
			if err == nil && json.Unmarshal(data, &ports) == nil && len(ports.Nats) > 0 {
				return ports.Nats[0]
			}
		}
		select {
		case <-p.done:
			t.Fatalf("nats-server exited: %v", p.err)
		case <-time.After(10 * time.Millisecond): // polling with a deadline
		}
		if time.Now().After(deadline) {
			t.Fatal("nats-server wrote no ports file within 30s")
		}
	}
}

// natsCluster is a 3-node nats-server cluster on 127.0.0.1: each node with
// a name, JetStream on file storage in a directory of its own, a client
// port, a route port and a monitoring port, all fixed when the cluster
// starts so that a node can be started again as it was.
type natsCluster struct {
	nodes []*natsNode
}

type natsNode struct {
	name                      string
	port, routePort, httpPort int
	store                     string
	proc                      *proc // nil while the node is down
}

// freePorts returns n distinct ports of 127.0.0.1 that were free when
// asked (another process could take one before it is used: the node that
// wanted it then fails to start, and the test with it).
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// startNATSCluster starts a 3-node JetStream cluster and waits until every
// node is healthy (the nodes agree on a JetStream meta leader).
func startNATSCluster(t *testing.T) *natsCluster {
	t.Helper()
	ports := freePorts(t, 9)
	c := &natsCluster{}
	for i := range 3 {
		c.nodes = append(c.nodes, &natsNode{name: fmt.Sprintf("n%d", i+1), port: ports[3*i], routePort: ports[3*i+1],
			httpPort: ports[3*i+2], store: filepath.Join(t.TempDir(), "js")})
	}
	for i := range c.nodes {
		c.start(t, i)
	}
	c.waitHealthy(t)
	return c
}

// url lists every node's client URL, as the processes are given it.
func (c *natsCluster) url() string {
	var urls []string
	for _, n := range c.nodes {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", n.port))
	}
	return strings.Join(urls, ",")
}

// start starts node i on its ports and store; it does not wait for it.
func (c *natsCluster) start(t *testing.T, i int) {
	t.Helper()
	n := c.nodes[i]
	var routes []string
	for _, o := range c.nodes {
		if o != n {
			routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", o.routePort))
		}
	}
	n.proc = start(t, "nats-server "+n.name, "-a", "127.0.0.1", "-p", strconv.Itoa(n.port), "-n", n.name,
		"--cluster_name", "wopr-test", "--cluster", fmt.Sprintf("nats://127.0.0.1:%d", n.routePort),
		"--routes", strings.Join(routes, ","), "-m", strconv.Itoa(n.httpPort), "-js", "-sd", n.store)
}

// kill SIGKILLs node i.
func (c *natsCluster) kill(t *testing.T, i int) {
	t.Helper()
	var exit *exec.ExitError
	if err := c.nodes[i].proc.stop(t, syscall.SIGKILL); !errors.As(err, &exit) {
		t.Fatalf("nats-server %s: %v", c.nodes[i].name, err)
	}
	c.nodes[i].proc = nil
}

// waitHealthy waits until every running node answers 200 on /healthz: it
// is connected to its routes and its JetStream is current with the meta
// leader and its streams.
func (c *natsCluster) waitHealthy(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, n := range c.nodes {
		if n.proc == nil {
			continue
		}
		for {
			code, body := status(fmt.Sprintf("http://127.0.0.1:%d/healthz", n.httpPort))
			if code == http.StatusOK {
				break
			}
			select {
			case <-n.proc.done:
				t.Fatalf("nats-server %s exited: %v", n.name, n.proc.err)
			case <-time.After(20 * time.Millisecond): // polling with a deadline
			}
			if time.Now().After(deadline) {
				t.Fatalf("nats-server %s: /healthz %d %q for a minute, want 200", n.name, code, body)
			}
		}
	}
}

// nodeOf returns the index of the running node that a connection named
// name is connected to, from the nodes' /connz, waiting for up to 30 s.
func (c *natsCluster) nodeOf(t *testing.T, name string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for i, n := range c.nodes {
			if n.proc == nil {
				continue
			}
			_, body := status(fmt.Sprintf("http://127.0.0.1:%d/connz", n.httpPort))
			var connz struct {
				Connections []struct{ Name string }
			}
			if json.Unmarshal([]byte(body), &connz) != nil {
				continue
			}
			for _, conn := range connz.Connections {
				if conn.Name == name {
					return i
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no node has a connection named %q after 30 s", name)
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
}

// jsLeaders returns, from node i's monitoring, the leader of every
// replicated stream and consumer, by "STREAM" and "STREAM > CONSUMER".
func (c *natsCluster) jsLeaders(t *testing.T, i int) map[string]string {
	t.Helper()
	_, body := status(fmt.Sprintf("http://127.0.0.1:%d/jsz?accounts=true&streams=true&consumers=true", c.nodes[i].httpPort))
	type cluster struct {
		Leader   string
		Replicas []struct{ Name string }
	}
	var jsz struct {
		AccountDetails []struct {
			StreamDetail []struct {
				Name           string
				Cluster        cluster
				ConsumerDetail []struct {
					Name    string
					Cluster cluster
				} `json:"consumer_detail"`
			} `json:"stream_detail"`
		} `json:"account_details"`
	}
	if err := json.Unmarshal([]byte(body), &jsz); err != nil {
		t.Fatalf("/jsz of %s: %v: %s", c.nodes[i].name, err, body)
	}
	leaders := map[string]string{}
	for _, a := range jsz.AccountDetails {
		for _, s := range a.StreamDetail {
			if len(s.Cluster.Replicas) > 0 {
				leaders[s.Name] = s.Cluster.Leader
			}
			for _, cons := range s.ConsumerDetail {
				if len(cons.Cluster.Replicas) > 0 {
					leaders[s.Name+" > "+cons.Name] = cons.Cluster.Leader
				}
			}
		}
	}
	return leaders
}

// lead makes node i the leader of every replicated stream and consumer
// (JetStream's leader stepdown with a preferred server), so that killing
// it makes the cluster elect every leader again: the worst case for the
// processes, whose requests to the dead leaders go unanswered.
func (c *natsCluster) lead(t *testing.T, i int) {
	t.Helper()
	name := c.nodes[i].name
	deadline := time.Now().Add(3 * time.Minute)
	for {
		leaders := c.jsLeaders(t, i)
		if len(leaders) == 0 {
			t.Fatalf("node %s knows no replicated stream", name)
		}
		moved := true
		for asset, leader := range leaders {
			if leader == name {
				continue
			}
			moved = false
			subject := "$JS.API.STREAM.LEADER.STEPDOWN." + asset
			if stream, consumer, ok := strings.Cut(asset, " > "); ok {
				subject = "$JS.API.CONSUMER.LEADER.STEPDOWN." + stream + "." + consumer
			}
			// A stepdown may fail, or go unanswered, while the previous
			// one settles (a loaded machine has seen one take over 10 s):
			// the next round asks again.
			if _, err := natsRequest(c.nodes[i].port, subject, fmt.Sprintf(`{"placement":{"preferred":%q}}`, name), 15*time.Second); err != nil {
				t.Logf("leader stepdown of %s to %s: %v (asked again)", asset, name, err)
			}
		}
		if moved {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s did not become the leader of every stream and consumer in 3 minutes: %v", name, leaders)
		}
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}
}

// natsRequest sends one request to the NATS server on port and returns the
// reply, speaking the text protocol itself: internal/broker alone imports the
// client library (TestOnlyBrokerImportsNATS). A reply that does not come
// within wait is an error.
func natsRequest(port int, subject, payload string, wait time.Duration) (string, error) {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(wait))
	r := bufio.NewReader(conn)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "INFO ") {
		return "", fmt.Errorf("nats on port %d said %q (%v), want INFO", port, line, err)
	}
	fmt.Fprintf(conn, "CONNECT {\"verbose\":false,\"pedantic\":false}\r\nSUB _INBOX.test 1\r\nPUB %s _INBOX.test %d\r\n%s\r\n",
		subject, len(payload), payload)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("request %s on port %d: %w", subject, port, err)
		}
		switch {
		case strings.HasPrefix(line, "PING"):
			fmt.Fprint(conn, "PONG\r\n")
		case strings.HasPrefix(line, "-ERR"):
			return "", fmt.Errorf("request %s on port %d: %s", subject, port, strings.TrimSpace(line))
		case strings.HasPrefix(line, "MSG "):
			f := strings.Fields(line)
			n, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				return "", fmt.Errorf("request %s: reply header %q", subject, line)
			}
			msg := make([]byte, n+2)
			if _, err := io.ReadFull(r, msg); err != nil {
				return "", fmt.Errorf("request %s: %w", subject, err)
			}
			return string(msg[:n]), nil
		}
	}
}

// jobRecord reads a job's record through the analyze command.
func jobRecord(t *testing.T, url, id string) map[string]any {
	t.Helper()
	out, err := run(t, "analyze", "status", id, "--nats", url, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("status output %q: %v", out, err)
	}
	return rec
}

// waitDone polls a job until at least n tasks are done.
func waitDone(t *testing.T, url, id string, n int) map[string]any {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rec := jobRecord(t, url, id)
		if done, _ := rec["done"].(float64); int(done) >= n {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: fewer than %d tasks done after 2 minutes: %v", id, n, rec)
		}
	}
}

// countReport is an mnk.count report as --json prints it.
type countReport struct {
	mnk.CountReport
	tasks.Common
}

var (
	refOnce sync.Once
	ref     countReport
	refErr  error
)

// countArgs is the job of the multi-process tests: 4x4 cut at ply 3 into a
// few hundred tasks, so that there is time to kill things mid-job.
var countArgs = []string{"mnk", "count", "--board", "4x4", "--split-depth", "3", "--json"}

// reference is the report of the same job on the embedded default.
func reference(t *testing.T) countReport {
	refOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wopr-ref")
		if err != nil {
			refErr = err
			return
		}
		defer os.RemoveAll(dir)
		out, err := run(t, "analyze", append(countArgs, "--data", dir)...)
		if err != nil {
			refErr = err
			return
		}
		refErr = json.Unmarshal([]byte(out), &ref)
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	return ref
}

func parseReport(t *testing.T, out string) countReport {
	t.Helper()
	var r countReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	return r
}

// sameFigures compares reports apart from timings, cache figures and what
// the coordinator refused, verified and quarantined.
func sameFigures(t *testing.T, got, want countReport) {
	t.Helper()
	got.ElapsedSeconds, want.ElapsedSeconds = 0, 0
	got.CacheHits, want.CacheHits = 0, 0
	got.CachedTasks, want.CachedTasks = 0, 0
	got.RefusedResults, got.VerifiedTasks, got.QuarantinedWorkers = 0, 0, nil
	want.RefusedResults, want.VerifiedTasks, want.QuarantinedWorkers = 0, 0, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("multi-process report differs from embedded:\ngot  %+v\nwant %+v", got, want)
	}
	if got.Games != 15038733958272 || got.Positions != 9722011 || !got.Complete {
		t.Errorf("4,4,4: %d games, %d positions, complete %v; want 15038733958272, 9722011, true", got.Games, got.Positions, got.Complete)
	}
}

type cluster struct {
	url     string
	dir     string
	coord   *proc
	workers []*proc
	// coordArgs are the coordinator's flags besides --nats, --data and
	// --ack-wait.
	coordArgs []string
}

func startCluster(t *testing.T) *cluster { return startClusterOn(t, startNATS(t)) }

// startClusterOn starts a coordinator (with coordArgs) and two workers on
// the NATS at url.
func startClusterOn(t *testing.T, url string, coordArgs ...string) *cluster {
	c := &cluster{url: url, dir: t.TempDir(), coordArgs: coordArgs}
	c.coord = c.startCoordinator(t)
	for i := range 2 {
		name := fmt.Sprintf("w%d", i+1)
		c.workers = append(c.workers, start(t, "worker "+name, "--nats", c.url, "--data", filepath.Join(c.dir, name),
			"--concurrency", "1", "--name", name, "--grace", "30s"))
	}
	return c
}

func (c *cluster) startCoordinator(t *testing.T) *proc {
	args := []string{"--nats", c.url, "--data", filepath.Join(c.dir, "coordinator"), "--ack-wait", "2s"}
	return start(t, "coordinator", append(args, c.coordArgs...)...)
}

func (c *cluster) submit(t *testing.T) string {
	t.Helper()
	out, err := run(t, "analyze", append(countArgs, "--nats", c.url, "--detach")...)
	if err != nil {
		t.Fatal(err)
	}
	var sub struct{ Job string }
	if err := json.Unmarshal([]byte(out), &sub); err != nil || !tasks.ValidID(sub.Job) {
		t.Fatalf("analyze --detach printed %q", out)
	}
	return sub.Job
}

func (c *cluster) report(t *testing.T, id string) countReport {
	t.Helper()
	out, err := run(t, "analyze", "report", id, "--wait", "--nats", c.url, "--json")
	if err != nil {
		t.Fatal(err)
	}
	return parseReport(t, out)
}

// A worker SIGKILLed mid-job loses nothing: its task is redelivered after
// AckWait and the report is exact and equal to the embedded one.
func TestKillWorkerMidJob(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	c := startCluster(t)
	id := c.submit(t)
	waitDone(t, c.url, id, 2)
	_ = c.workers[0].stop(t, syscall.SIGKILL)
	rec := jobRecord(t, c.url, id)
	if rec["state"] != "running" {
		t.Fatalf("the job ended before the worker was killed: %v", rec)
	}
	sameFigures(t, c.report(t, id), want)
	// The survivor stops gracefully on SIGTERM.
	if err := c.workers[1].stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("worker exit after SIGTERM: %v", err)
	}
	if out := c.workers[1].out.String(); !strings.Contains(out, "worker stopped") {
		t.Errorf("worker log has no 'worker stopped':\n%s", out)
	}
}

// A coordinator SIGKILLed mid-job and started again on the same store
// resumes the job and finishes it exactly.
func TestRestartCoordinatorMidJob(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	c := startCluster(t)
	id := c.submit(t)
	waitDone(t, c.url, id, 2)
	err := c.coord.stop(t, syscall.SIGKILL)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("coordinator: %v", err)
	}
	if rec := jobRecord(t, c.url, id); rec["state"] != "running" {
		t.Fatalf("the job ended before the coordinator was killed: %v", rec)
	}
	c.coord = c.startCoordinator(t)
	got := c.report(t, id)
	sameFigures(t, got, want)
	if rec := jobRecord(t, c.url, id); rec["failed"].(float64) != 0 {
		t.Errorf("failed tasks after restart: %v", rec)
	}
}

// A nats-server SIGKILLed mid-job and started again on the same store and
// port: every process reconnects, the running job finishes exactly, and a
// job submitted just after the restart is taken up and finishes too (the
// coordinator's watch of job records sees nothing for up to 10 s after a
// restart; it looks for new jobs every second meanwhile).
func TestRestartNATSMidJob(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	store := filepath.Join(t.TempDir(), "js")
	url, srv := startNATSAt(t, store, "-1")
	c := startClusterOn(t, url)
	id := c.submit(t)
	waitDone(t, c.url, id, 2)
	var exit *exec.ExitError
	if err := srv.stop(t, syscall.SIGKILL); !errors.As(err, &exit) {
		t.Fatalf("nats-server: %v", err)
	}
	if again, _ := startNATSAt(t, store, url[strings.LastIndex(url, ":")+1:]); again != url {
		t.Fatalf("restarted nats-server at %s, want %s", again, url)
	}
	out, err := run(t, "analyze", "mnk", "count", "--board", "3x3", "--nats", url, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if small := parseReport(t, out); small.Games != 255168 || small.Nodes != 549946 {
		t.Errorf("3x3 after the restart: %d games, %d nodes; want 255168 and 549946", small.Games, small.Nodes)
	}
	sameFigures(t, c.report(t, id), want)
	if rec := jobRecord(t, c.url, id); rec["failed"].(float64) != 0 {
		t.Errorf("failed tasks after the restart: %v", rec)
	}
}

// The same command run again while its job is unfinished on a cluster (a
// client interrupted, or detached) follows that job instead of submitting
// a second; a report of a job that did not complete is still one JSON
// object with --json.
func TestClusterRerunFollowsUnfinishedJob(t *testing.T) {
	runsBinaries(t)
	c := startCluster(t)
	for _, w := range c.workers { // no worker: the job cannot finish
		_ = w.stop(t, syscall.SIGTERM)
	}
	first := c.submit(t)
	if again := c.submit(t); again != first {
		t.Errorf("the same command submitted job %s while job %s was unfinished", again, first)
	}
	out, err := run(t, "analyze", "jobs", "--nats", c.url, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Jobs []struct{ ID string } }
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Jobs) != 1 {
		t.Errorf("jobs: %s (%v), want one", out, err)
	}
	if _, err := run(t, "analyze", "cancel", first, "--nats", c.url); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "analyze", "report", first, "--wait", "--nats", c.url, "--json")
	var rep struct{ ID, State string }
	if jerr := json.Unmarshal([]byte(out), &rep); err == nil || jerr != nil || rep.ID != first || rep.State != "cancelled" {
		t.Errorf("report --json of a cancelled job printed %q (%v), exit error %v; want its state as one object and an error", out, jerr, err)
	}
}
