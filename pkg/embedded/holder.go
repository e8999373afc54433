package embedded

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
)

// Holder is the process that holds a data directory, as it writes itself
// into the directory's LOCK file.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Command string    `json:"command"`
	Started time.Time `json:"started"`
	// Joinable: its cluster runs the jobs of other commands on the same
	// directory (analyze serve); see Join.
	Joinable bool `json:"joinable,omitempty"`
}

// InUseError is the error of a data directory that another process holds.
type InUseError struct {
	Dir    string
	Holder *Holder // nil if it did not say who it is
}

func (e *InUseError) Error() string {
	if e.Holder == nil {
		return fmt.Sprintf("data directory %s is in use by another wopr process: give this command another --data DIR, or run a cluster and use --nats URL", e.Dir)
	}
	h := e.Holder
	return fmt.Sprintf("data directory %s is in use by %q (pid %d, since %s), which runs only its own jobs: "+
		"wait for it to finish, give this command another --data DIR, or run a cluster and use --nats URL",
		e.Dir, h.Command, h.PID, h.Started.Local().Format("15:04:05"))
}

// ErrInUse is wrapped by InUseError.
var ErrInUse = errors.New("data directory in use")

func (e *InUseError) Unwrap() error { return ErrInUse }

// joinFile is the file of a joinable cluster's data directory that says
// how to reach its server: readable by its owner only, since it holds the
// server's password.
const joinFile = "JOIN"

// joinInfo is what joinFile holds.
type joinInfo struct {
	URL      string `json:"url"`
	User     string `json:"user"`
	Password string `json:"password"`
}

// Join returns how to reach the server of the joinable cluster that holds
// dir (see Options.Joinable): its URL and credentials, which only the
// directory's owner can read.
func Join(dir string) (url string, auth broker.Auth, err error) {
	data, err := os.ReadFile(filepath.Join(dir, joinFile))
	if err != nil {
		return "", broker.Auth{}, fmt.Errorf("join the cluster of %s: %w", dir, err)
	}
	var j joinInfo
	if err := json.Unmarshal(data, &j); err != nil || j.URL == "" {
		return "", broker.Auth{}, fmt.Errorf("join the cluster of %s: %s holds no address", dir, joinFile)
	}
	return j.URL, broker.Auth{User: j.User, Password: j.Password}, nil
}

// writeJoin writes dir's joinFile for a server at url with these
// credentials.
func writeJoin(dir, url string, auth broker.Auth) error {
	data, err := json.Marshal(joinInfo{URL: url, User: auth.User, Password: auth.Password})
	if err != nil {
		return err
	}
	path := filepath.Join(dir, joinFile)
	_ = os.Remove(path) // a stale one of a process that died, perhaps with other permissions
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// newPassword returns a random password for a joinable server.
func newPassword() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// me is this process as a Holder.
func me(joinable bool) Holder {
	host, _ := os.Hostname()
	cmd := filepath.Base(os.Args[0])
	if len(os.Args) > 1 {
		cmd += " " + strings.Join(os.Args[1:], " ")
	}
	return Holder{PID: os.Getpid(), Host: host, Command: cmd, Started: time.Now().UTC(), Joinable: joinable}
}

// writeHolder writes h into the LOCK file f that this process holds.
func writeHolder(f *os.File, h Holder) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(append(data, '\n'), 0)
	return err
}

// readHolder reads the holder that the LOCK file at path names, or nil.
func readHolder(path string) *Holder {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(data, &h) != nil || h.PID == 0 {
		return nil
	}
	return &h
}
