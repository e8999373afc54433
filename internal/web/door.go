package web

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// Role is what a user who came in may do.
type Role int

// The roles, each allowed what the one before it is.
const (
	// RoleRead reads: the pages, the reports, the lists of jobs and
	// workers and their event streams; it also plays the games, which are
	// the player's own and change nothing of the cluster's.
	RoleRead Role = iota + 1
	// RoleSubmit also submits jobs (uploads included) and cancels them.
	RoleSubmit
)

// String is the role's name in a users file.
func (r Role) String() string {
	switch r {
	case RoleRead:
		return "read"
	case RoleSubmit:
		return "submit"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// MinToken is the length a token must have at least: tokens are random
// strings a program makes (openssl rand -hex 32), never a password a
// person chose, so that their SHA-256 is all a users file needs to hold.
const MinToken = 16

// User is one line of a users file: a name, a role, and the SHA-256 of the
// user's token.
type User struct {
	Name string
	Role Role
	// Sum is the SHA-256 of the token.
	Sum [sha256.Size]byte
}

// ParseUsers reads a users file: one user a line, "NAME ROLE
// sha256:HEX", where ROLE is read or submit and HEX the SHA-256 of the
// user's token (printf %s TOKEN | sha256sum); blank lines and lines
// starting with # are skipped. name names the file in errors.
func ParseUsers(r io.Reader, name string) ([]User, error) {
	var users []User
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 3: NAME ROLE sha256:HEX", name, n, len(f))
		}
		u := User{Name: f[0]}
		if strings.Contains(u.Name, ":") {
			return nil, fmt.Errorf("%s:%d: name %q has a colon, which a browser's login cannot send", name, n, u.Name)
		}
		if seen[u.Name] {
			return nil, fmt.Errorf("%s:%d: user %q given twice", name, n, u.Name)
		}
		seen[u.Name] = true
		switch f[1] {
		case "read":
			u.Role = RoleRead
		case "submit":
			u.Role = RoleSubmit
		default:
			return nil, fmt.Errorf("%s:%d: role %q: want read or submit", name, n, f[1])
		}
		sum, ok := strings.CutPrefix(f[2], "sha256:")
		b, err := hex.DecodeString(sum)
		if !ok || err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("%s:%d: secret %.12q...: want sha256: and the 64 hex digits of the token's SHA-256", name, n, f[2])
		}
		copy(u.Sum[:], b)
		users = append(users, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("%s: no users", name)
	}
	return users, nil
}

// ParseToken returns the token a token file holds: its first line, spaces
// around it removed. name names the file in errors.
func ParseToken(data []byte, name string) (string, error) {
	line, _, _ := strings.Cut(string(data), "\n")
	token := strings.TrimSpace(line)
	if len(token) < MinToken {
		return "", fmt.Errorf("%s: the token has %d characters, want at least %d (make one with: openssl rand -hex 32)", name, len(token), MinToken)
	}
	return token, nil
}

// Auth is who may come in: the holder of a token, with RoleSubmit, and the
// users of a users file, each with their role.
type Auth struct {
	token *[sha256.Size]byte
	users []User
}

// NewAuth returns an Auth for token (none if empty) and users.
func NewAuth(token string, users []User) (*Auth, error) {
	if token == "" && len(users) == 0 {
		return nil, errors.New("web: authentication without a token or a user")
	}
	a := &Auth{users: users}
	if token != "" {
		if len(token) < MinToken {
			return nil, fmt.Errorf("web: the token has %d characters, want at least %d", len(token), MinToken)
		}
		sum := sha256.Sum256([]byte(token))
		a.token = &sum
	}
	return a, nil
}

// tokenName is who holds the token, in messages.
const tokenName = "the token's holder"

// check returns who presents secret with name, and their role, or ok
// false: the user of that name whose token it is, or with no name any
// user's; else the holder of the token, whatever the name. Every digest is
// compared with every one, in constant time, so that how long a refusal
// takes says nothing of the secrets.
func (a *Auth) check(name, secret string) (who string, role Role, ok bool) {
	sum := sha256.Sum256([]byte(secret))
	for _, u := range a.users {
		match := subtle.ConstantTimeCompare(sum[:], u.Sum[:]) == 1
		if match && !ok && (name == "" || name == u.Name) {
			who, role, ok = u.Name, u.Role, true
		}
	}
	if a.token != nil && subtle.ConstantTimeCompare(sum[:], a.token[:]) == 1 && !ok {
		who, role, ok = tokenName, RoleSubmit, true
	}
	return who, role, ok
}

// credentials returns the name and secret of a request's Authorization
// header: a bearer token (no name) or a browser's login (HTTP basic
// authentication: a user's name and token, or any name and the token).
func credentials(r *http.Request) (name, secret string, ok bool) {
	scheme, rest, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	rest = strings.TrimSpace(rest)
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return "", rest, true
	case strings.EqualFold(scheme, "Basic"):
		b, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return "", "", false
		}
		return strings.Cut(string(b), ":")
	}
	return "", "", false
}

// caller is who made a request, in its context.
type caller struct {
	who  string
	role Role
}

type callerKey struct{}

// callerOf is who made a request: anyone, with RoleSubmit, when the
// server asks for no authentication.
func callerOf(ctx context.Context) caller {
	if c, ok := ctx.Value(callerKey{}).(caller); ok {
		return c
	}
	return caller{who: "anyone", role: RoleSubmit}
}

// authenticate lets in a request whose credentials a.check takes, with
// its caller in the context; it refuses the others with 401 and asks a
// browser for a login.
func (a *Auth) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	name, secret, ok := credentials(r)
	if ok {
		if who, role, found := a.check(name, secret); found {
			return r.WithContext(context.WithValue(r.Context(), callerKey{}, caller{who: who, role: role})), true
		}
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="wopr", charset="UTF-8"`)
	if ok {
		writeError(w, http.StatusUnauthorized, "refused: the credentials are not a user's or the token")
	} else {
		writeError(w, http.StatusUnauthorized, "refused: authentication required (Authorization: Bearer TOKEN, or a user's name and token)")
	}
	return r, false
}

// submits lets h answer only callers with RoleSubmit; others get 403.
func submits(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c := callerOf(r.Context()); c.role < RoleSubmit {
			writeError(w, http.StatusForbidden, fmt.Sprintf("refused: %s has the role %s; submitting, cancelling and uploading jobs take the role submit", c.who, c.role))
			return
		}
		h(w, r)
	}
}

// loopbackNames are the names of a server on loopback, always allowed in
// the Host header.
var loopbackNames = []string{"localhost", "127.0.0.1", "[::1]"}

// hostAllowed tells whether a request's Host header names this server: a
// loopback name, the address the request arrived at, or one of hosts. A
// page whose name an attacker rebinds to this server's address (DNS
// rebinding) sends its own name, and is refused: a browser would
// otherwise let it read the answers as its own.
func hostAllowed(r *http.Request, hosts map[string]bool) bool {
	host := hostName(r.Host)
	if host == "" {
		return false
	}
	if host == "localhost" || hosts[host] {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := local.(*net.TCPAddr)
	return ok && tcp.IP.Equal(ip)
}

// hostName is a Host header's name, without its port and brackets, in
// lower case and without a final dot.
func hostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// refuseHost answers a request whose Host header names another server.
func refuseHost(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("refused: Host %q is not a name of this server (%s, its address, or one of --allowed-hosts)",
		r.Host, strings.Join(loopbackNames, ", ")))
}
