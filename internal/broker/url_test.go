package broker

import (
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for _, good := range []string{
		"nats://127.0.0.1:4222", "127.0.0.1", "localhost:4222", "nats://a:4222, nats://b:4222",
		"nats://user:pw@h:4222", "tls://h", "ws://h:8080", "[::1]:4222", "nats://[::1]", "nats://h/",
	} {
		if err := CheckURL(good); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", good, err)
		}
	}
	for _, c := range []struct{ url, want string }{
		{"", "no server named"},
		{" , ", "no server named"},
		{"::::", `server "::::": host "::::": an IPv6 address goes in brackets`},
		{"::1", "in brackets"},
		{"bogus://x", `scheme "bogus": want nats, tls, ws or wss`},
		{"nats://127.0.0.1:99999", "port 99999: want 1 to 65535"},
		{"h:0", "port 0: want 1 to 65535"},
		{"h:abc", `invalid port ":abc"`},
		{"nats://:4222", "no host"},
		{"nats://h:4222/x", "no path, query or fragment"},
		{"nats://a:4222,nats://b:0", `server "nats://b:0": port 0`},
	} {
		err := CheckURL(c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckURL(%q) = %v, want an error with %q", c.url, err, c.want)
		}
	}
}
