package test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Off loopback analyze serve will not start without authentication, and
// its door's flags are checked before anything starts: usage errors.
func TestServeDoorUsageErrors(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	short, users, garbage := filepath.Join(dir, "short"), filepath.Join(dir, "users"), filepath.Join(dir, "garbage")
	for name, text := range map[string]string{short: "tooshort\n", users: "alice admin sha256:00\n", garbage: "not a certificate\n"} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	expectUsageErrors(t, []usageCase{
		{[]string{"serve", "--addr", "0.0.0.0:0"}, "--addr 0.0.0.0:0 is not a loopback address"},
		{[]string{"serve", "--addr", ":0"}, "pass --token-file FILE (or WOPR_WEB_TOKEN) or --users FILE"},
		{[]string{"serve", "--addr", "[::]:0"}, "is not a loopback address"},
		{[]string{"serve", "--addr", "wopr.example.com:0"}, "is not a loopback address"},
		{[]string{"serve", "--token-file", short}, "want at least 16"},
		{[]string{"serve", "--token-file", filepath.Join(dir, "none")}, "--token-file: open"},
		{[]string{"serve", "--users", users}, `role "admin": want read or submit`},
		{[]string{"serve", "--https-cert", garbage}, "--https-cert and --https-key go together"},
		{[]string{"serve", "--https-cert", garbage, "--https-key", garbage}, "--https-cert " + garbage},
		{[]string{"serve", "--allowed-hosts", "a.example,*"}, "--allowed-hosts"},
	}, always)
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir and
// returns their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (cert, key string, pool *x509.CertPool) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "wopr test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return cert, key, pool
}

// analyze serve behind its door, as a server off loopback runs it (bound
// to 127.0.0.1 here): HTTPS with the given certificate, a token and users
// with roles, the Host header checked.
func TestServeDoor(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	cert, key, pool := selfSigned(t, dir)
	const token, reader, submitter = "token-0123456789abcdef0123456789", "reader-0123456789abcdef012345678", "submitter-0123456789abcdef012345"
	tokenFile, usersFile := filepath.Join(dir, "token"), filepath.Join(dir, "users")
	users := fmt.Sprintf("# name role sha256 of the token\nalice read sha256:%x\nbob submit sha256:%x\n", sha256.Sum256([]byte(reader)), sha256.Sum256([]byte(submitter)))
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(usersFile, []byte(users), 0o600); err != nil {
		t.Fatal(err)
	}
	p := start(t, "analyze serve", "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--workers", "1",
		"--token-file", tokenFile, "--users", usersFile, "--https-cert", cert, "--https-key", key, "--allowed-hosts", "wopr.example.com")
	re := regexp.MustCompile(`serving on (https://127\.0\.0\.1:\d+)/`)
	var url string
	waitFor(t, "analyze serve to print its https address", func() bool {
		select {
		case <-p.done:
			t.Fatalf("analyze serve exited: %v\n%s", p.err, p.out.String())
		default:
		}
		m := re.FindStringSubmatch(p.out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: time.Minute}
	call := func(method, path, body, host string, set func(*http.Request)) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if host != "" {
			req.Host = host
		}
		if set != nil {
			set(req)
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	bearer := func(tok string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
	}
	login := func(name, tok string) func(*http.Request) { return func(r *http.Request) { r.SetBasicAuth(name, tok) } }

	for _, path := range []string{"/", "/jobs", "/api/jobs"} {
		if code, body := call("GET", path, "", "", nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without credentials: %d %s, want 401", path, code, body)
		}
		if code, body := call("GET", path, "", "", bearer("wrong-0123456789abcdef0123456789")); code != http.StatusUnauthorized {
			t.Errorf("GET %s with a wrong token: %d %s, want 401", path, code, body)
		}
		if code, body := call("GET", path, "", "", bearer(token)); code != http.StatusOK {
			t.Errorf("GET %s with the token: %d %s, want 200", path, code, body)
		}
		if code, body := call("GET", path, "", "", login("alice", reader)); code != http.StatusOK {
			t.Errorf("GET %s with alice's login: %d %s, want 200", path, code, body)
		}
		if code, body := call("GET", path, "", "rebind.evil.example", bearer(token)); code != http.StatusMisdirectedRequest || !strings.Contains(body, "rebind.evil.example") {
			t.Errorf("GET %s with Host rebind.evil.example: %d %s, want 421 naming it", path, code, body)
		}
		if code, body := call("GET", path, "", "wopr.example.com", bearer(token)); code != http.StatusOK {
			t.Errorf("GET %s with Host wopr.example.com (--allowed-hosts): %d %s, want 200", path, code, body)
		}
	}
	const count = `{"kind": "mnk.count", "params": {"rows": 3, "cols": 3}}`
	if code, body := call("POST", "/api/jobs", count, "", nil); code != http.StatusUnauthorized {
		t.Errorf("POST /api/jobs without credentials: %d %s, want 401", code, body)
	}
	if code, body := call("POST", "/api/jobs", count, "", login("alice", reader)); code != http.StatusForbidden || !strings.Contains(body, "role read") {
		t.Errorf("POST /api/jobs as alice (read): %d %s, want 403 naming the role", code, body)
	}
	if code, body := call("POST", "/api/jobs", count, "", login("bob", submitter)); code != http.StatusAccepted {
		t.Errorf("POST /api/jobs as bob (submit): %d %s, want 202", code, body)
	}
	if err := p.stop(t, syscall.SIGINT); err != nil {
		t.Errorf("analyze serve after an interrupt: %v, want exit 0\n%s", err, p.out.String())
	}
}
