// Package natsflags holds the flags with which every wopr command
// (analyze, coordinator, worker) presents credentials to NATS and checks
// its server, besides --nats: one definition for the three binaries, each
// flag also read from an environment variable.
package natsflags

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/broker"
)

// Flags returns the credential and TLS flags, new ones at each call.
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "nats-creds", Usage: "NATS credentials `FILE` (user JWT and nkey seed)", EnvVars: []string{"WOPR_NATS_CREDS"}, TakesFile: true},
		&cli.StringFlag{Name: "nats-nkey", Usage: "nkey seed `FILE` of a NATS user", EnvVars: []string{"WOPR_NATS_NKEY"}, TakesFile: true},
		&cli.StringFlag{Name: "nats-user", Usage: "NATS user `NAME` (or in the URL: nats://user:password@host)", EnvVars: []string{"WOPR_NATS_USER"}},
		&cli.StringFlag{Name: "nats-password", Usage: "the NATS user's `PASSWORD` (better from the environment: a command line is public)", EnvVars: []string{"WOPR_NATS_PASSWORD"}},
		&cli.StringFlag{Name: "tls-ca", Usage: "`FILE` of CA certificates that sign the NATS server's (default: the system's)", EnvVars: []string{"WOPR_TLS_CA"}, TakesFile: true},
		&cli.StringFlag{Name: "tls-cert", Usage: "client certificate `FILE` for NATS (mutual TLS)", EnvVars: []string{"WOPR_TLS_CERT"}, TakesFile: true},
		&cli.StringFlag{Name: "tls-key", Usage: "`FILE` of the client certificate's key", EnvVars: []string{"WOPR_TLS_KEY"}, TakesFile: true},
	}
}

// Auth returns the settings of the flags.
func Auth(c *cli.Context) broker.Auth {
	return broker.Auth{
		User: c.String("nats-user"), Password: c.String("nats-password"),
		NKeyFile: c.String("nats-nkey"), CredsFile: c.String("nats-creds"),
		CAFile: c.String("tls-ca"), CertFile: c.String("tls-cert"), KeyFile: c.String("tls-key"),
	}
}

// Check checks the flags against the server URL (see broker.Auth.Check); an
// error is a usage error.
func Check(c *cli.Context, url string) error { return Auth(c).Check(url) }

// Hint adds to the error of a connection that the server refused which
// flags to look at; other errors are returned as they are.
func Hint(err error) error {
	switch {
	case errors.Is(err, broker.ErrAuthorization):
		return fmt.Errorf("%w (check --nats-user/--nats-password, --nats-creds or --nats-nkey)", err)
	case errors.Is(err, broker.ErrPermission):
		return fmt.Errorf("%w (the NATS user's permissions lack a subject wopr uses: see Permissions in docs/operations.md)", err)
	case errors.Is(err, broker.ErrTLS):
		return fmt.Errorf("%w (check --tls-ca, --tls-cert and --tls-key)", err)
	}
	return err
}
