package broker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://alice:s3cret@h:4222", "nats://alice:xxxxx@h:4222"},
		{"alice:s3cret@h:4222", "alice:xxxxx@h:4222"},
		{"nats://tok3n@h", "nats://xxxxx@h"},
		{"nats://a:p@h1:4222, tls://b:q@h2:4222,h3", "nats://a:xxxxx@h1:4222, tls://b:xxxxx@h2:4222,h3"},
		{"nats://a:p@ss:w@rd@h:4222", "nats://a:xxxxx@h:4222"},
		{"nats://a:p/w@h", "nats://a:xxxxx@h"},
		{"", ""},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A URL that CheckURL refuses is named without its password.
func TestCheckURLHidesPassword(t *testing.T) {
	for _, u := range []string{"nats://alice:s3cret@h:99999", "nats://alice:s3%zzcret@h:4222", "nats://alice:s3cret@h:4222/x"} {
		err := CheckURL(u)
		if err == nil || strings.Contains(err.Error(), "s3") {
			t.Errorf("CheckURL(%q) = %v, want an error without the password", u, err)
		}
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// userSeed makes a user's nkey and returns its seed and public key.
func userSeed(t *testing.T) (seed, public string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := kp.Seed()
	p, _ := kp.PublicKey()
	return string(s), p
}

func TestAuthCheck(t *testing.T) {
	seed, _ := userSeed(t)
	seedFile := writeFile(t, "user.nk", seed+"\n")
	creds := writeFile(t, "user.creds", "-----BEGIN NATS USER JWT-----\neyJh.eyJi.c2ln\n------END NATS USER JWT------\n\n"+
		"-----BEGIN USER NKEY SEED-----\n"+seed+"\n------END USER NKEY SEED------\n")
	garbage := writeFile(t, "garbage", "not a key\n")
	const url = "nats://127.0.0.1:4222"
	for _, good := range []struct {
		url string
		a   Auth
	}{
		{url, Auth{}},
		{url, Auth{User: "alice", Password: "pw"}},
		{url, Auth{User: "alice"}},
		{"nats://alice:pw@h", Auth{}},
		{url, Auth{NKeyFile: seedFile}},
		{url, Auth{CredsFile: creds}},
	} {
		if err := good.a.Check(good.url); err != nil {
			t.Errorf("%+v.Check(%q) = %v, want nil", good.a, good.url, err)
		}
	}
	for _, c := range []struct {
		url  string
		a    Auth
		want string
	}{
		{"nats://alice:pw@h", Auth{Password: "other"}, "both in the URL and given apart"},
		{url, Auth{Password: "pw"}, "a password without a user"},
		{url, Auth{User: "alice", Password: "pw", NKeyFile: seedFile}, "more than one kind of credentials"},
		{url, Auth{NKeyFile: seedFile, CredsFile: creds}, "more than one kind of credentials"},
		{url, Auth{NKeyFile: garbage}, "nkey seed file " + garbage},
		{url, Auth{NKeyFile: "/no/such/file"}, "no such file"},
		{url, Auth{CredsFile: garbage}, "credentials file " + garbage},
		{url, Auth{CAFile: garbage}, "no PEM certificate"},
		{url, Auth{CertFile: garbage}, "a client certificate needs its key"},
		{url, Auth{CertFile: garbage, KeyFile: garbage}, "client certificate " + garbage},
	} {
		err := c.a.Check(c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v.Check(%q) = %v, want an error with %q", c.a, c.url, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("%+v.Check: %v names the password", c.a, err)
		}
	}
}

// authServer runs a JetStream server whose users are alice (password
// "right-pw") and the nkey user pub.
func authServer(t *testing.T, pub string) (*server.Server, *server.Options) {
	t.Helper()
	var opts *server.Options
	s := startServer(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "alice", Password: "right-pw"}}
		o.Nkeys = []*server.NkeyUser{{Nkey: pub}}
		// No system account, so no system events: the server's event of
		// a refused client reads the client's counters without the
		// atomics its read loop writes them with (nats-server v2.15.2 and v2.15.3,
		// events.go sendAuthErrorEvent), which the race detector reports
		// in TestRevokedCredentials. wopr's own code does not change.
		o.NoSystemAccount = true
		opts = o
	})
	return s, opts
}

// Refused credentials are an error at once, wrapping ErrAuthorization and
// saying whose they were, even for a process that waits for its server.
func TestRefusedCredentials(t *testing.T) {
	seed, pub := userSeed(t)
	s, _ := authServer(t, pub)
	otherSeed, _ := userSeed(t)
	url := s.ClientURL()
	right := []Auth{{User: "alice", Password: "right-pw"}, {NKeyFile: writeFile(t, "user.nk", seed)}}
	for _, a := range right {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		b, err := Open(ctx, Endpoint{URL: url, Auth: a, WaitFirst: true}, DefaultConfig())
		cancel()
		if err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		b.Close()
	}
	for _, c := range []struct {
		url  string
		a    Auth
		want string
	}{
		{url, Auth{User: "alice", Password: "wrong-pw"}, "authorization failed for user alice at " + url},
		{strings.Replace(url, "nats://", "nats://alice:wrong-pw@", 1), Auth{}, "authorization failed for user alice at nats://alice:xxxxx@"},
		{url, Auth{}, "authorization failed without credentials"},
		{url, Auth{NKeyFile: writeFile(t, "other.nk", otherSeed)}, "authorization failed for nkey U"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		start := time.Now()
		_, err := Attach(ctx, Endpoint{URL: c.url, Auth: c.a, WaitFirst: true}, DefaultConfig())
		cancel()
		if !errors.Is(err, ErrAuthorization) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "wrong-pw") {
			t.Errorf("%+v at %s: %v, want ErrAuthorization with %q and no password", c.a, c.url, err, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%+v: refused after %v, want at once", c.a, d)
		}
	}
}

// Credentials revoked while a process is connected end its connection for
// good: Failed is closed, and Err says why.
func TestRevokedCredentials(t *testing.T) {
	_, pub := userSeed(t)
	s, opts := authServer(t, pub)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := Open(ctx, Endpoint{URL: s.ClientURL(), Auth: Auth{User: "alice", Password: "right-pw"}, WaitFirst: true}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Err(); err != nil {
		t.Fatalf("Err before any refusal: %v", err)
	}
	changed := opts.Clone()
	changed.Users = []*server.User{{Username: "alice", Password: "new-pw"}}
	if err := s.ReloadOptions(changed); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.Failed():
	case <-ctx.Done():
		t.Fatal("the connection did not fail within 10 s of the password's change")
	}
	if err := b.Err(); !errors.Is(err, ErrAuthorization) || !strings.Contains(err.Error(), "user alice") {
		t.Errorf("Err = %v, want ErrAuthorization for user alice", err)
	}
	if _, err := b.Jobs().List(context.Background()); err == nil {
		t.Error("Jobs.List on a failed connection succeeded")
	}
}

// A server not reachable yet is waited for (WaitFirst) until ctx ends,
// and is not taken for a refusal.
func TestWaitFirstUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	_, err := Attach(ctx, Endpoint{URL: "nats://127.0.0.1:1", WaitFirst: true}, DefaultConfig())
	if err == nil || errors.Is(err, ErrAuthorization) || errors.Is(err, ErrTLS) || ctx.Err() == nil {
		t.Errorf("Attach to a closed port: %v (ctx %v), want a connection error when ctx ends", err, ctx.Err())
	}
}
