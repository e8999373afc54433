package broker

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Auth is how a process proves to NATS who it is, and how it checks the
// server: at most one kind of credentials (a user and password, an nkey, or
// a credentials file), and TLS. The zero value connects without either.
type Auth struct {
	// User and Password name a user of the server's configuration. They
	// may be in the URL instead (nats://user:password@host), not in both.
	User, Password string
	// NKeyFile holds a user's nkey seed (SU...); the server knows the
	// user by its public key.
	NKeyFile string
	// CredsFile is a credentials file: a user JWT and its nkey seed, as
	// nsc writes them for a server in operator mode.
	CredsFile string
	// CAFile holds the certificates of the authorities that sign the
	// server's certificate (without it: the system's).
	CAFile string
	// CertFile and KeyFile are a client certificate and its key, for a
	// server that verifies its clients (mutual TLS).
	CertFile, KeyFile string
}

// ErrAuthorization is wrapped by the error of a connection whose
// credentials the server refused: wrong, missing, expired or revoked.
var ErrAuthorization = errors.New("authorization failed")

// ErrPermission is wrapped by the error of a request that the server
// refused for the user's permissions (with nats.ErrPermissionViolation,
// naming the subject): a denied request is never answered, and waiting
// for its answer would wait for ever.
var ErrPermission = errors.New("permission denied by the NATS server")

// ErrTLS is wrapped by the error of a connection that failed in TLS: a
// server certificate that the CA did not sign, a client certificate the
// server refused, TLS wanted on one side only.
var ErrTLS = errors.New("tls failed")

// Check checks the credentials and TLS settings against the server URL
// (see CheckURL) before anything connects: one kind of credentials, a
// certificate with its key, and files that can be read and hold what they
// should. Its errors name files, never a password.
func (a Auth) Check(serverURL string) error {
	inURL := urlUser(serverURL) != nil
	switch {
	case inURL && (a.User != "" || a.Password != ""):
		return errors.New("a user and password both in the URL and given apart: give them once")
	case a.Password != "" && a.User == "":
		return errors.New("a password without a user")
	}
	kinds := 0
	for _, set := range []bool{inURL || a.User != "", a.NKeyFile != "", a.CredsFile != ""} {
		if set {
			kinds++
		}
	}
	if kinds > 1 {
		return errors.New("more than one kind of credentials (a user and password, an nkey, a credentials file): give one")
	}
	if a.NKeyFile != "" {
		if _, err := nkeyPublic(a.NKeyFile); err != nil {
			return err
		}
	}
	if a.CredsFile != "" {
		data, err := os.ReadFile(a.CredsFile)
		if err != nil {
			return fmt.Errorf("credentials file: %w", err)
		}
		jwt, err := nkeys.ParseDecoratedJWT(data)
		if err == nil && (jwt == "" || strings.Count(jwt, ".") != 2) {
			err = errors.New("no user JWT")
		}
		if err == nil {
			var kp nkeys.KeyPair
			kp, err = nkeys.ParseDecoratedUserNKey(data)
			if kp != nil {
				kp.Wipe()
			}
		}
		clear(data)
		if err != nil {
			return fmt.Errorf("credentials file %s: %w", a.CredsFile, err)
		}
	}
	if (a.CertFile == "") != (a.KeyFile == "") {
		return errors.New("a client certificate needs its key, and a key its certificate")
	}
	if a.CAFile != "" {
		pem, err := os.ReadFile(a.CAFile)
		if err != nil {
			return fmt.Errorf("CA file: %w", err)
		}
		if !x509.NewCertPool().AppendCertsFromPEM(pem) {
			return fmt.Errorf("CA file %s: no PEM certificate in it", a.CAFile)
		}
	}
	if a.CertFile != "" {
		if _, err := tls.LoadX509KeyPair(a.CertFile, a.KeyFile); err != nil {
			return fmt.Errorf("client certificate %s and key %s: %w", a.CertFile, a.KeyFile, err)
		}
	}
	return nil
}

// nkeyPublic reads a user's nkey seed file and returns its public key.
func nkeyPublic(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("nkey seed file: %w", err)
	}
	defer clear(data)
	kp, err := nkeys.ParseDecoratedUserNKey(data)
	if err != nil {
		return "", fmt.Errorf("nkey seed file %s: %w", file, err)
	}
	defer kp.Wipe()
	return kp.PublicKey()
}

// options maps the settings to nats.go's options. The files are read again
// at every connection, so that certificates and credentials can be
// replaced while a process runs.
func (a Auth) options() ([]nats.Option, error) {
	var opts []nats.Option
	if a.User != "" {
		opts = append(opts, nats.UserInfo(a.User, a.Password))
	}
	if a.NKeyFile != "" {
		o, err := nats.NkeyOptionFromSeed(a.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("nkey seed file %s: %w", a.NKeyFile, err)
		}
		opts = append(opts, o)
	}
	if a.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(a.CredsFile))
	}
	if a.CAFile != "" {
		opts = append(opts, nats.RootCAs(a.CAFile))
	}
	if a.CertFile != "" {
		opts = append(opts, nats.ClientCert(a.CertFile, a.KeyFile))
	}
	return opts, nil
}

// who says whose credentials a connection presents, for messages.
func (e Endpoint) who() string {
	a := e.Auth
	switch u := urlUser(e.URL); {
	case a.CredsFile != "":
		return "with the credentials in " + a.CredsFile
	case a.NKeyFile != "":
		if pub, err := nkeyPublic(a.NKeyFile); err == nil {
			return "for nkey " + pub
		}
		return "for the nkey in " + a.NKeyFile
	case a.User != "":
		return "for user " + a.User
	case u != nil:
		if _, ok := u.Password(); ok {
			return "for user " + u.Username()
		}
		return "with the token in the URL"
	}
	return "without credentials"
}

// refused classifies an error of a connection: an error wrapping
// ErrAuthorization or ErrTLS, saying who connected where, for a failure
// that trying again cannot mend; nil for any other (a server not reachable
// yet, a connection lost).
func (e Endpoint) refused(err error) error {
	switch {
	case errors.Is(err, nats.ErrAuthorization):
		// The server says no more than "authorization violation".
		return &connError{kind: ErrAuthorization, msg: fmt.Sprintf("nats: authorization failed %s at %s", e.who(), e), err: err}
	case errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked), errors.Is(err, nats.ErrAccountAuthExpired):
		return &connError{kind: ErrAuthorization, msg: fmt.Sprintf("nats: authorization failed %s at %s", e.who(), e), err: err,
			detail: err.Error()}
	case errors.Is(err, nats.ErrTLS) && (errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)):
		// Closed by the server after a handshake that went well on our
		// side: with TLS 1.3 a server judges the client's certificate
		// after the client has finished.
		return &connError{kind: ErrTLS, msg: fmt.Sprintf("nats: TLS with %s failed", e), err: err,
			detail: "the server closed the connection after the handshake: it refuses the client certificate, or wants one"}
	case errors.Is(err, nats.ErrTLS), errors.Is(err, nats.ErrSecureConnWanted), errors.Is(err, nats.ErrSecureConnRequired), isRemoteTLSAlert(err):
		return &connError{kind: ErrTLS, msg: fmt.Sprintf("nats: TLS with %s failed", e), err: err,
			detail: strings.TrimPrefix(err.Error(), nats.ErrTLS.Error()+": ")}
	}
	return nil
}

// isRemoteTLSAlert reports whether err is a TLS alert from the server, such
// as its refusal of a client certificate: with TLS 1.3 the client's
// handshake is over before the server has judged the certificate, and the
// refusal comes with the first read.
func isRemoteTLSAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error" && strings.Contains(op.Err.Error(), "tls:")
}

// connError is a connection refused for its credentials or in TLS.
type connError struct {
	kind   error // ErrAuthorization or ErrTLS
	msg    string
	detail string // what err adds to msg, if anything
	err    error
}

func (e *connError) Error() string {
	if e.detail == "" {
		return e.msg
	}
	return e.msg + ": " + e.detail
}

func (e *connError) Unwrap() []error { return []error{e.kind, e.err} }

// RedactURL returns a server URL, or a comma-separated list of them, with
// every password replaced by xxxxx (nats://user:xxxxx@host), and a token
// (a user name without a password, which nats.go sends as a token) by
// xxxxx too: every URL that wopr prints, logs or stores goes through it.
func RedactURL(s string) string {
	parts := strings.Split(s, ",")
	for i, part := range parts {
		start := 0
		if j := strings.Index(part, "://"); j >= 0 {
			start = j + len("://")
		}
		at := strings.LastIndex(part, "@")
		if at < start {
			continue
		}
		user, _, hasPassword := strings.Cut(part[start:at], ":")
		if hasPassword {
			parts[i] = part[:start] + user + ":xxxxx" + part[at:]
		} else {
			parts[i] = part[:start] + "xxxxx" + part[at:]
		}
	}
	return strings.Join(parts, ",")
}

// urlUser returns the user information of the first server of a URL list
// that has one, or nil.
func urlUser(s string) *url.Userinfo {
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if !strings.Contains(part, "://") {
			part = "nats://" + part
		}
		if u, err := url.Parse(part); err == nil && u.User != nil {
			return u.User
		}
	}
	return nil
}
