package broker

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CheckURL checks a NATS server URL as nats.Connect reads it (a
// comma-separated list of servers, each with or without a scheme, with
// the default port when none is given), so that a URL that could never
// connect is an error at once rather than a connection retried forever.
func CheckURL(s string) error {
	n := 0
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n++
		if err := checkServer(part); err != nil {
			return fmt.Errorf("server %q: %w", RedactURL(part), err)
		}
	}
	if n == 0 {
		return fmt.Errorf("no server named")
	}
	return nil
}

func checkServer(s string) error {
	if !strings.Contains(s, "://") {
		s = "nats://" + s
	}
	u, err := url.Parse(s)
	if ue, ok := err.(*url.Error); ok {
		if _, ok := ue.Err.(url.EscapeError); ok {
			return fmt.Errorf("an invalid %%-escape") // it may be in a password
		}
		return ue.Err // the URL itself is in the caller's message
	}
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "nats", "tls", "ws", "wss":
	default:
		return fmt.Errorf("scheme %q: want nats, tls, ws or wss", u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("no host")
	}
	if !strings.HasPrefix(u.Host, "[") && strings.Count(u.Host, ":") > 1 {
		return fmt.Errorf("host %q: an IPv6 address goes in brackets, as in [::1]:4222", u.Host)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %s: want 1 to 65535", p)
		}
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("a server URL has no path, query or fragment")
	}
	return nil
}
