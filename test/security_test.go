package test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// The tests of issue 18's security: credentials and TLS against a real
// nats-server, refusals, revocation, secrets kept out of every output, and
// a worker held to the permissions of docs/operations.md.

// pki is a certificate authority with a server certificate for 127.0.0.1
// and a client certificate, and a client certificate of another authority
// (rogue), as PEM files.
type pki struct {
	ca, serverCert, serverKey, clientCert, clientKey, rogueCert, rogueKey string
}

func makePKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	serial := func() *big.Int {
		n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	newCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		k := key()
		tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: name}, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return cert, k, der
	}
	issue := func(ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, server bool) (certPath, keyPath string) {
		k := key()
		tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: name}, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
		if server {
			tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", keyDER)
	}
	ca, caKey, caDER := newCA("wopr test CA")
	rogue, rogueKey, _ := newCA("another CA")
	var p pki
	p.ca = write("ca.pem", "CERTIFICATE", caDER)
	p.serverCert, p.serverKey = issue(ca, caKey, "server", true)
	p.clientCert, p.clientKey = issue(ca, caKey, "client", false)
	p.rogueCert, p.rogueKey = issue(rogue, rogueKey, "rogue", false)
	return p
}

// tlsConf is a server configuration that verifies its clients' certificates.
func (p pki) tlsConf() string {
	return fmt.Sprintf("tls { cert_file: %q, key_file: %q, ca_file: %q, verify: true, timeout: 2 }\n", p.serverCert, p.serverKey, p.ca)
}

// nkeyUser makes a user's nkey and writes its seed to a file.
func nkeyUser(t *testing.T) (seedFile, public string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	public, _ = kp.PublicKey()
	seedFile = filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(seedFile, append(seed, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return seedFile, public
}

// operatorMode returns the configuration of a server in operator mode with
// one account, where JetStream is enabled, and the credentials files of a
// user of that account and of a user of an account the server does not
// know.
func operatorMode(t *testing.T) (conf, creds, strangerCreds string) {
	t.Helper()
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	newKey := func(create func() (nkeys.KeyPair, error)) (nkeys.KeyPair, string) {
		kp, err := create()
		if err != nil {
			t.Fatal(err)
		}
		return kp, must(kp.PublicKey())
	}
	okp, opub := newKey(nkeys.CreateOperator)
	ojwt := must(jwt.NewOperatorClaims(opub).Encode(okp))
	account := func(name string, js bool) (nkeys.KeyPair, string, string) {
		akp, apub := newKey(nkeys.CreateAccount)
		ac := jwt.NewAccountClaims(apub)
		ac.Name = name
		if js {
			ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
		}
		return akp, apub, must(ac.Encode(okp))
	}
	_, syspub, sysjwt := account("SYS", false)
	akp, apub, ajwt := account("wopr", true)
	stranger, _, _ := account("unknown", true) // never given to the server
	user := func(signer nkeys.KeyPair) string {
		ukp, upub := newKey(nkeys.CreateUser)
		ujwt := must(jwt.NewUserClaims(upub).Encode(signer))
		seed, _ := ukp.Seed()
		data, err := jwt.FormatUserConfig(ujwt, seed)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "user.creds")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	conf = fmt.Sprintf("operator: %s\nsystem_account: %s\nresolver: MEMORY\nresolver_preload: {\n  %s: %s\n  %s: %s\n}\n",
		ojwt, syspub, syspub, sysjwt, apub, ajwt)
	return conf, user(akp), user(stranger)
}

// startNATSConf starts a nats-server with JetStream on a free port of
// 127.0.0.1, the configuration body and the environment env, and returns
// its URL, its process and its configuration file.
func startNATSConf(t *testing.T, body string, env ...string) (url string, p *proc, conf string) {
	t.Helper()
	dir := t.TempDir()
	conf = filepath.Join(dir, "nats.conf")
	writeConf(t, conf, filepath.Join(dir, "js"), body)
	p = startEnv(t, env, "nats-server", "-c", conf, "--ports_file_dir", dir)
	return natsURL(t, p, dir), p, conf
}

func writeConf(t *testing.T, path, store, body string) {
	t.Helper()
	text := fmt.Sprintf("host: 127.0.0.1\nport: -1\njetstream { store_dir: %q }\n%s", store, body)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// result is what a command that ran to its end did.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// runEnv runs a command line to its end (killed after 30 s) with variables
// added to the environment.
func runEnv(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(name), args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return r
}

// conn is how the processes of a test connect: a URL, flags and
// environment variables.
type conn struct {
	url   string
	flags []string
	env   []string
}

func (c conn) args(args ...string) []string {
	return append(append(args, "--nats", c.url), c.flags...)
}

// runSmallJob starts a coordinator and a worker, runs a 3x3 count with
// analyze, each connecting with c, and stops the daemons.
func runSmallJob(t *testing.T, c conn) {
	t.Helper()
	dir := t.TempDir()
	coord := startEnv(t, c.env, "coordinator", c.args("--data", filepath.Join(dir, "c"))...)
	w := startEnv(t, c.env, "worker", c.args("--data", filepath.Join(dir, "w"), "-c", "1")...)
	r := runEnv(t, c.env, "analyze", c.args("mnk", "count", "--board", "3x3", "--json")...)
	if r.code != 0 {
		t.Fatalf("analyze: exit %d: %s", r.code, r.stderr)
	}
	if got := parseReport(t, r.stdout); got.Games != 255168 || got.Nodes != 549946 {
		t.Errorf("3x3: %d games, %d nodes; want 255168 and 549946", got.Games, got.Nodes)
	}
	for _, p := range []*proc{w, coord} {
		if err := p.stop(t, syscall.SIGTERM); err != nil {
			t.Errorf("%s: %v after SIGTERM, want exit 0:\n%s", p.name, err, p.out.String())
		}
	}
}

// Every kind of credentials, right, runs a job: a password (flags,
// environment, URL), an nkey, a credentials file (operator mode), and a
// client certificate with mutual TLS.
func TestCredentialsRunJob(t *testing.T) {
	runsBinaries(t)
	p := makePKI(t)
	seed, pub := nkeyUser(t)
	users := fmt.Sprintf("authorization { users: [ {user: admin, password: %q}, {nkey: %s} ] }\n", "right-pw", pub)
	opConf, creds, _ := operatorMode(t)
	for _, c := range []struct {
		name, conf string
		conn       func(url string) conn
	}{
		{"password flags", users, func(url string) conn {
			return conn{url: url, flags: []string{"--nats-user", "admin", "--nats-password", "right-pw"}}
		}},
		{"password environment", users, func(url string) conn {
			return conn{url: url, env: []string{"WOPR_NATS_USER=admin", "WOPR_NATS_PASSWORD=right-pw"}}
		}},
		{"password in URL", users, func(url string) conn {
			return conn{url: strings.Replace(url, "://", "://admin:right-pw@", 1)}
		}},
		{"nkey", users, func(url string) conn { return conn{url: url, flags: []string{"--nats-nkey", seed}} }},
		{"credentials file", opConf, func(url string) conn {
			return conn{url: url, env: []string{"WOPR_NATS_CREDS=" + creds}}
		}},
		{"mutual TLS", p.tlsConf(), func(url string) conn {
			return conn{url: url, flags: []string{"--tls-ca", p.ca, "--tls-cert", p.clientCert, "--tls-key", p.clientKey}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, _, _ := startNATSConf(t, c.conf)
			runSmallJob(t, c.conn(url))
		})
	}
}

// refusals counts the server's lines about refused connections: one per
// attempt to connect.
var refusals = regexp.MustCompile(`authentication error|TLS handshake error`)

// Wrong credentials, and TLS that fails, make each binary exit 1 at once
// with a message that says so, after one attempt: no retries.
func TestWrongCredentialsExitAtOnce(t *testing.T) {
	runsBinaries(t)
	p := makePKI(t)
	_, pub := nkeyUser(t)
	otherSeed, _ := nkeyUser(t)
	opConf, _, strangerCreds := operatorMode(t)
	pwURL, pwServer, _ := startNATSConf(t, fmt.Sprintf("authorization { users: [ {user: admin, password: %q}, {nkey: %s} ] }\n", "right-pw", pub))
	opURL, opServer, _ := startNATSConf(t, opConf)
	tlsURL, tlsServer, _ := startNATSConf(t, p.tlsConf())
	const authHint = "(check --nats-user/--nats-password, --nats-creds or --nats-nkey)"
	const tlsHint = "(check --tls-ca, --tls-cert and --tls-key)"
	cases := []struct {
		name   string
		server *proc
		c      conn
		want   []string
	}{
		{"wrong password", pwServer, conn{url: pwURL, flags: []string{"--nats-user", "admin", "--nats-password", "wrong-pw"}},
			[]string{"nats: authorization failed for user admin at " + pwURL, authHint}},
		{"wrong password in URL", pwServer, conn{url: strings.Replace(pwURL, "://", "://admin:wrong-pw@", 1)},
			[]string{"authorization failed for user admin at " + strings.Replace(pwURL, "://", "://admin:xxxxx@", 1), authHint}},
		{"no credentials", pwServer, conn{url: pwURL}, []string{"authorization failed without credentials", authHint}},
		{"unknown nkey", pwServer, conn{url: pwURL, flags: []string{"--nats-nkey", otherSeed}}, []string{"authorization failed for nkey U", authHint}},
		{"credentials of an unknown account", opServer, conn{url: opURL, flags: []string{"--nats-creds", strangerCreds}},
			[]string{"authorization failed with the credentials in " + strangerCreds, authHint}},
		{"server of an unknown CA", tlsServer, conn{url: tlsURL, flags: []string{"--tls-cert", p.clientCert, "--tls-key", p.clientKey}},
			[]string{"nats: TLS with " + tlsURL + " failed", "certificate signed by unknown authority", tlsHint}},
		{"client certificate of another CA", tlsServer, conn{url: tlsURL, flags: []string{"--tls-ca", p.ca, "--tls-cert", p.rogueCert, "--tls-key", p.rogueKey}},
			[]string{"nats: TLS with " + tlsURL + " failed: ", tlsHint}},
		{"no client certificate", tlsServer, conn{url: tlsURL, flags: []string{"--tls-ca", p.ca}},
			[]string{"nats: TLS with " + tlsURL + " failed: ", tlsHint}},
	}
	attempts := map[*proc]int{}
	var slowest time.Duration
	for _, c := range cases {
		for _, bin := range []string{"coordinator", "worker", "analyze"} {
			args := c.c.args("--data", t.TempDir())
			if bin == "analyze" {
				args = c.c.args("jobs")
			}
			r := runEnv(t, c.c.env, bin, args...)
			attempts[c.server]++
			slowest = max(slowest, r.elapsed)
			t.Logf("%s, %s: exit %d after %v", c.name, bin, r.code, r.elapsed.Round(time.Millisecond))
			if r.code != 1 {
				t.Errorf("%s, %s: exit %d, want 1:\n%s", c.name, bin, r.code, r.stderr)
			}
			if r.elapsed > 5*time.Second {
				t.Errorf("%s, %s: exit after %v, want within 5 s", c.name, bin, r.elapsed)
			}
			for _, want := range c.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("%s, %s: stderr lacks %q:\n%s", c.name, bin, want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "retrying") || strings.Contains(r.stderr, "wrong-pw") {
				t.Errorf("%s, %s: stderr retries or names the password:\n%s", c.name, bin, r.stderr)
			}
		}
	}
	t.Logf("slowest exit: %v", slowest.Round(time.Millisecond))
	for _, s := range []*proc{pwServer, opServer, tlsServer} {
		// A server writes its log line as it closes the connection,
		// which may be just after the client has exited.
		deadline := time.Now().Add(5 * time.Second)
		for len(refusals.FindAllString(s.out.String(), -1)) < attempts[s] && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // polling with a deadline
		}
		if got := len(refusals.FindAllString(s.out.String(), -1)); got != attempts[s] {
			t.Errorf("a server logged %d refused connections for %d attempts, want one each:\n%s", got, attempts[s], s.out.String())
		}
	}
}

// A coordinator and a worker whose password the server stops accepting
// while they run (the configuration changed and reloaded) exit 1 with a
// message saying so, instead of reconnecting for ever.
func TestRevokedCredentialsStop(t *testing.T) {
	runsBinaries(t)
	users := func(pw string) string {
		return fmt.Sprintf("authorization { users: [ {user: admin, password: %q} ] }\n", pw)
	}
	url, server, conf := startNATSConf(t, users("right-pw"))
	c := conn{url: url, flags: []string{"--nats-user", "admin", "--nats-password", "right-pw"}}
	dir := t.TempDir()
	coord := start(t, "coordinator", c.args("--data", filepath.Join(dir, "c"))...)
	w := start(t, "worker", c.args("--data", filepath.Join(dir, "w"), "-c", "1")...)
	if r := runEnv(t, nil, "analyze", c.args("mnk", "count", "--board", "3x3", "--json")...); r.code != 0 {
		t.Fatalf("analyze: exit %d: %s", r.code, r.stderr)
	}
	writeConf(t, conf, filepath.Join(filepath.Dir(conf), "js"), users("new-pw"))
	before := len(refusals.FindAllString(server.out.String(), -1))
	reload := time.Now()
	if err := server.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*proc{coord, w} {
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s still runs 20 s after its password was revoked:\n%s", p.name, p.out.String())
		}
		t.Logf("%s exited %v after the reload", p.name, time.Since(reload).Round(time.Millisecond))
		var exit *exec.ExitError
		if !errors.As(p.err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("%s: %v, want exit 1", p.name, p.err)
		}
		out := p.out.String()
		if !strings.Contains(out, "stopping: nats refused this "+p.name+"'s credentials") ||
			!strings.Contains(out, p.name+": nats: authorization failed for user admin at "+url) {
			t.Errorf("%s says nothing of the refusal:\n%s", p.name, out)
		}
	}
	// The connection closed by the server is tried again at most twice by
	// nats.go before the process stops.
	if n := len(refusals.FindAllString(server.out.String(), -1)) - before; n > 6 {
		t.Errorf("%d refused connections after the reload, want at most 3 for each process:\n%s", n, server.out.String())
	}
}

// No password appears in anything the three binaries print, log or store:
// their stdout and stderr (debug logs included), analyze jobs, status and
// report (text and JSON), the job record, the coordinator lease, errors of
// connections and of usage, and --help.
func TestNoPasswordInAnyOutput(t *testing.T) {
	runsBinaries(t)
	pw := "pw-" + rand.Text()
	url, server, _ := startNATSConf(t, fmt.Sprintf("authorization { users: [ {user: admin, password: %q} ] }\n", pw))
	inURL := strings.Replace(url, "://", "://admin:"+pw+"@", 1)
	flags := []string{"--nats-user", "admin", "--nats-password", pw}
	// With the password in the environment, or in the URL (not both).
	env := []string{"WOPR_NATS_USER=admin", "WOPR_NATS_PASSWORD=" + pw, "WOPR_LOG=debug"}
	logs := []string{"WOPR_LOG=debug"}
	dir := t.TempDir()
	var outputs []string
	look := func(what, text string) {
		t.Helper()
		outputs = append(outputs, what)
		if strings.Contains(text, pw) {
			t.Errorf("%s shows the password:\n%s", what, text)
		}
	}
	coord := start(t, "coordinator", "--nats", inURL, "--data", filepath.Join(dir, "c"), "-v")
	w := start(t, "worker", append([]string{"--nats", url, "--data", filepath.Join(dir, "w"), "-c", "1", "-v"}, flags...)...)
	standby := startEnv(t, []string{"WOPR_NATS=" + inURL}, "coordinator standby", "--data", filepath.Join(dir, "c2"), "-v")

	analyze := func(env []string, args ...string) result {
		t.Helper()
		r := runEnv(t, env, "analyze", args...)
		look("analyze "+strings.Join(args, " ")+" stdout", r.stdout)
		look("analyze "+strings.Join(args, " ")+" stderr", r.stderr)
		return r
	}
	r := analyze(logs, "mnk", "count", "--board", "3x3", "--json", "--nats", inURL)
	if r.code != 0 {
		t.Fatalf("analyze: exit %d: %s", r.code, r.stderr)
	}
	analyze(nil, append([]string{"mnk", "count", "--board", "3x3", "--progress", "--nats", url}, flags...)...)
	r = analyze(env, "jobs", "--json", "--nats", url)
	var list struct{ Jobs []struct{ ID string } }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Jobs) == 0 {
		t.Fatalf("jobs --json: %q (%v)", r.stdout, err)
	}
	id := list.Jobs[0].ID
	for _, args := range [][]string{{"jobs"}, {"status", id}, {"status", id, "--json"}, {"report", id}, {"report", id, "--json"}, {"cancel", id}} {
		if r := analyze(logs, append(args, "--nats", inURL)...); r.code != 0 {
			t.Errorf("analyze %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		if r := analyze(env, append(args, "--nats", url)...); r.code != 0 {
			t.Errorf("analyze %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	// Failures: a wrong password beside the right one in the URL, a server
	// not reachable, a bad URL, a usage error with the password set, help.
	analyze(nil, "jobs", "--nats", strings.Replace(url, "://", "://admin:"+pw+"x@", 1))
	analyze(logs, "jobs", "--nats", "nats://admin:"+pw+"@127.0.0.1:1")
	analyze(env, "jobs", "--nats", "nats://admin:"+pw+"@127.0.0.1:1")
	analyze(nil, "jobs", "--nats", "nats://admin:"+pw+"@127.0.0.1:99999")
	analyze(env, "jobs", "--nats", url, "--nats-nkey", "/no/such/file")
	analyze(env, "jobs", "--help")
	for _, bin := range []string{"coordinator", "worker"} {
		for _, args := range [][]string{{"--help"}, {"--data", dir, "--nats", "nats://admin:" + pw + "@127.0.0.1:99999"}, {"--data", dir, "--nats", url, "--nats-password", pw}} {
			r := runEnv(t, logs, bin, args...)
			if r.code != 0 && r.code != 2 {
				t.Errorf("%s %s: exit %d, want 0 (help) or 2 (a usage error)", bin, strings.Join(args, " "), r.code)
			}
			look(bin+" "+strings.Join(args, " "), r.stdout+r.stderr)
		}
	}

	// The web face on the cluster, the password in its URL: every page and
	// every answer of the jobs API, and its log.
	serve := startEnv(t, logs, "analyze serve", "serve", "--addr", "127.0.0.1:0", "--nats", inURL)
	base := servingOn(t, serve)
	for _, path := range []string{"/", "/play", "/nineboard", "/sudoku", "/jobs", "/jobs/" + id, "/jobs/20261201-000000-abcdef",
		"/api/jobs", "/api/jobs/" + id, "/api/jobs/nope", "/static/jobs.js", "/static/wopr.js"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		look("analyze serve: GET "+path, string(body))
	}
	if err := serve.stop(t, syscall.SIGINT); err != nil {
		t.Errorf("analyze serve: %v", err)
	}
	look("analyze serve's output", serve.out.String())

	// What is stored: the job record and the lease, read as an admin.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := broker.Attach(ctx, broker.Endpoint{URL: url, Auth: broker.Auth{User: "admin", Password: pw}}, broker.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	records, err := b.Jobs().List(ctx)
	if err != nil || len(records) < 1 {
		t.Fatalf("list jobs: %d, %v", len(records), err)
	}
	data, _ := json.Marshal(records)
	look("the job records", string(data))
	lctx, lcancel := context.WithTimeout(ctx, 2*time.Second)
	defer lcancel()
	var holder broker.Holder
	if _, err := b.Leases().Acquire(lctx, broker.Holder{ID: "test"}, func(h broker.Holder) { holder = h }); err == nil {
		t.Fatal("the test took the lease from the running coordinator")
	}
	data, _ = json.Marshal(holder)
	if holder.PID == 0 {
		t.Errorf("lease holder %s, want the coordinator", data)
	}
	look("the lease", string(data))

	// The daemons' logs, to the end.
	for _, p := range []*proc{w, coord, standby} {
		if err := p.stop(t, syscall.SIGTERM); err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
		look(p.name+"'s output", p.out.String())
	}
	// Whichever took the lease first, the other names it.
	if both := coord.out.String() + standby.out.String(); !strings.Contains(both, "admin:xxxxx@") || !strings.Contains(both, "standing by") {
		t.Errorf("the coordinators' logs lack the redacted URL or the standby's line:\n%s", both)
	}
	look("the server's log", server.out.String())
	t.Logf("searched %d outputs", len(outputs))
}

// permissionsConf is the authorization block of docs/operations.md.
func permissionsConf(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "```conf\n# wopr's permissions for nats-server"
	i := bytes.Index(doc, []byte(start))
	if i < 0 {
		t.Fatalf("docs/operations.md has no block starting %q", start)
	}
	block := doc[i+len("```conf\n"):]
	return string(block[:bytes.Index(block, []byte("```"))])
}

// Jobs run with a coordinator, a worker and a client each held to the
// permissions that docs/operations.md gives them, and the worker's
// credentials cannot cancel, rewrite or submit a job, purge tasks or
// publish them: the server refuses, and the job and its tasks stay as
// they were.
func TestWorkerHeldToItsPermissions(t *testing.T) {
	runsBinaries(t)
	url, server, _ := startNATSConf(t, permissionsConf(t),
		"WOPR_COORDINATOR_PASSWORD=c-pw", "WOPR_WORKER_PASSWORD=w-pw", "WOPR_CLIENT_PASSWORD=cl-pw")
	as := func(user, pw string) conn {
		return conn{url: url, env: []string{"WOPR_NATS_USER=" + user, "WOPR_NATS_PASSWORD=" + pw}}
	}
	coordinator, worker, client := as("coordinator", "c-pw"), as("worker", "w-pw"), as("client", "cl-pw")
	dir := t.TempDir()
	startEnv(t, coordinator.env, "coordinator", coordinator.args("--data", filepath.Join(dir, "c"))...)
	w := startEnv(t, worker.env, "worker", worker.args("--data", filepath.Join(dir, "w"), "-c", "2", "--name", "worker")...)

	r := runEnv(t, client.env, "analyze", client.args("mnk", "count", "--board", "3x3", "--json")...)
	if r.code != 0 {
		t.Fatalf("analyze as a client: exit %d: %s", r.code, r.stderr)
	}
	if got := parseReport(t, r.stdout); got.Games != 255168 {
		t.Errorf("3x3: %d games, want 255168", got.Games)
	}
	// An input uploaded, an output downloaded.
	corpus, out := filepath.Join(dir, "corpus.txt"), filepath.Join(dir, "solved.txt")
	if err := os.WriteFile(corpus, []byte(strings.Repeat("003020600900305001001806400008102900700000008006708200002609500800203009005010300\n", 3)), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runEnv(t, client.env, "analyze", client.args("sudoku", "solve", corpus, "--out", out, "-q")...); r.code != 0 {
		t.Fatalf("sudoku solve as a client: exit %d: %s", r.code, r.stderr)
	}
	if solved, err := os.ReadFile(out); err != nil || strings.Count(string(solved), "\n") != 3 {
		t.Errorf("--out: %q (%v), want 3 solutions", solved, err)
	}
	if strings.Contains(server.out.String(), "Violation") {
		t.Errorf("the job ran into permission violations:\n%s", server.out.String())
	}

	// A job left unfinished: no worker runs it.
	if err := w.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("worker: %v", err)
	}
	// A client reads the cluster's state: the worker, which announced
	// itself with its own credentials, and the coordinator.
	if r := runEnv(t, client.env, "analyze", client.args("workers")...); r.code != 0 || !strings.Contains(r.stdout, "stopped") {
		t.Errorf("analyze workers as a client: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := runEnv(t, client.env, "analyze", client.args("status")...); r.code != 0 || !strings.Contains(r.stdout, "coordinator  ") {
		t.Errorf("analyze status as a client: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(server.out.String(), "Violation") {
		t.Errorf("workers and status ran into permission violations:\n%s", server.out.String())
	}
	r = runEnv(t, client.env, "analyze", client.args("mnk", "count", "--board", "4x4", "--split-depth", "2", "--detach")...)
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || !tasks.ValidID(id) {
		t.Fatalf("analyze --detach: exit %d: %q %s", r.code, r.stdout, r.stderr)
	}

	// The worker's credentials read job records but change nothing.
	ctx := context.Background()
	b, err := broker.Attach(ctx, broker.Endpoint{URL: url, Auth: broker.Auth{User: "worker", Password: "w-pw"}}, broker.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var before *job.Record
	for deadline := time.Now().Add(30 * time.Second); ; {
		if before, _, err = b.Jobs().Get(ctx, id); err != nil {
			t.Fatalf("a worker cannot read a job record: %v", err)
		}
		if before.State == job.Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not running after 30 s: %+v", id, before)
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	var queued uint64
	for deadline := time.Now().Add(30 * time.Second); queued < uint64(before.Tasks); {
		if queued, err = b.Work().QueuedTasks(ctx); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks queued after 30 s, want %d", queued, before.Tasks)
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	denied := func(what string, f func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := f(ctx); err == nil {
			t.Errorf("a worker could %s", what)
		}
	}
	// A KV delete or purge of a record is a publish to the same subject as
	// these puts, $KV.wopr_jobs.<id>.
	denied("cancel a job", func(ctx context.Context) error { _, err := b.Jobs().Cancel(ctx, id); return err })
	denied("rewrite a job", func(ctx context.Context) error {
		_, err := b.Jobs().Update(ctx, id, func(r *job.Record) error { r.State, r.Tasks = job.Done, 1; return nil })
		return err
	})
	denied("submit a job", func(ctx context.Context) error {
		_, err := b.Jobs().Submit(ctx, tasks.Spec{Kind: "mnk.count", Params: []byte(`{"rows":3,"cols":3,"k":3}`)})
		return err
	})
	denied("purge a job's tasks", func(ctx context.Context) error { return b.Work().PurgeJob(ctx, id) })
	denied("purge the work queue", b.Work().PurgeTasks)
	denied("delete the workers' consumer", b.Work().ForgetDeliveries)
	denied("publish a task", func(ctx context.Context) error {
		return b.Work().PublishTask(ctx, job.Task{Job: id, ID: "t1", Kind: "mnk.count", Payload: []byte("{}")})
	})
	// A job that does not exist is confirmed with the bucket's leader
	// (internal/broker's Jobs.Get): the permissions allow that read.
	if _, _, err := b.Jobs().Get(ctx, "20260101-000000-000000"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("a worker reading a job that does not exist: %v, want job.ErrNotFound", err)
	}
	if r := runEnv(t, client.env, "analyze", client.args("status", "20260101-000000-000000")...); !strings.Contains(r.stderr, "no such job") {
		t.Errorf("analyze status of a job that does not exist, as a client: exit %d: %s", r.code, r.stderr)
	}
	after, _, err := b.Jobs().Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if after.State != job.Running || after.CancelRequested || after.Tasks != before.Tasks || !reflectEqualJSON(t, after.Spec, before.Spec) {
		t.Errorf("the job's record changed: before %+v, after %+v", before, after)
	}
	if n, err := b.Work().QueuedTasks(ctx); err != nil || n != queued {
		t.Errorf("queued tasks: %d (%v), want %d as before", n, err, queued)
	}
	for _, subject := range []string{"$KV.wopr_jobs." + id, "$JS.API.STREAM.PURGE.WOPR_TASKS",
		"$JS.API.CONSUMER.DELETE.WOPR_TASKS.workers", "wopr.tasks." + id + ".t1"} {
		if want := `user:worker" - Publish Violation - Subject "` + subject + `"`; !strings.Contains(server.out.String(), want) {
			t.Errorf("the server logged no %s:\n%s", want, server.out.String())
		}
	}
}

func reflectEqualJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// Credentials that cannot go together, and files that cannot be read or
// do not hold what they should, are usage errors: exit code 2, one line,
// nothing started, in analyze and in the daemons.
func TestCredentialFlagsUsageErrors(t *testing.T) {
	runsBinaries(t)
	garbage := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(garbage, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const url = "nats://127.0.0.1:1"
	expectUsageErrors(t, []usageCase{
		{[]string{"jobs", "--nats", "nats://a:b@127.0.0.1:1", "--nats-user", "x"}, "a user and password both in the URL and given apart"},
		{[]string{"jobs", "--nats", url, "--nats-password", "p"}, "a password without a user"},
		{[]string{"mnk", "count", "--nats", url, "--nats-nkey", "/no/such/file"}, "nkey seed file: open /no/such/file"},
		{[]string{"status", "x", "--nats", url, "--nats-creds", garbage}, "credentials file " + garbage},
		{[]string{"jobs", "--nats", url, "--nats-creds", garbage, "--nats-user", "u", "--nats-password", "p"}, "more than one kind of credentials"},
		{[]string{"jobs", "--nats", url, "--tls-cert", garbage}, "a client certificate needs its key"},
		{[]string{"cancel", "x", "--nats", url, "--tls-ca", garbage}, "CA file " + garbage + ": no PEM certificate"},
	}, always)
	for _, c := range []struct {
		cmd  string
		env  []string
		args []string
		want string
	}{
		{"worker", nil, []string{"--nats-password", "p"}, "a password without a user"},
		{"coordinator", []string{"WOPR_NATS_CREDS=/no/such/file"}, nil, "credentials file: open /no/such/file"},
		{"worker", []string{"WOPR_TLS_KEY=" + garbage}, nil, "a client certificate needs its key"},
		{"coordinator", nil, []string{"--nats-nkey", garbage, "--nats", "nats://u:p@127.0.0.1:1"}, "more than one kind of credentials"},
	} {
		r := runEnv(t, c.env, c.cmd, append(c.args, "--data", t.TempDir())...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%s %v %v: exit %d, stderr %q; want exit code 2 and one line with %q", c.cmd, c.env, c.args, r.code, r.stderr, c.want)
		}
	}
}
