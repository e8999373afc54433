package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/infile"
)

// writeCertificate extracts, in this process, the strategies that prove the
// value of g's empty board, checks that they prove the value the job
// reported, and writes them to path (through a temporary file, so that a
// certificate is never half written).
func writeCertificate(ctx context.Context, stderr io.Writer, quiet bool, path string, g *mnk.Game, ttMB, maxPositions int, report []byte) error {
	var rep struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(report, &rep); err != nil || rep.Value == "" {
		return fmt.Errorf("certificate: the job's report has no value (%v)", err)
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	if ttMB == 0 {
		ttMB = 64
	}
	start := time.Now()
	last := start
	progress := func(n int) {
		if !quiet && time.Since(last) >= 2*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "certificate: %d positions so far\n", n)
		}
	}
	cert, err := mnk.NewCertificate(ctx, mnk.NewSolver(g, ttMB<<20), mnk.Position{}, maxPositions, progress)
	if errors.Is(err, mnk.ErrCertificateTooBig) {
		return fmt.Errorf("certificate: %w (--certificate-positions): a strategy must answer every reply of the other side, and certificates grow fast past 4x5 (docs/games.md)", err)
	}
	if err != nil {
		return fmt.Errorf("certificate: %w", err)
	}
	if cert.Value.String() != rep.Value {
		return fmt.Errorf("certificate: the job found %s, the strategies prove %s: one of the two is wrong", rep.Value, cert.Value)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("certificate: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("certificate: %w", err)
	}
	if _, err := cert.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("certificate: %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("certificate: %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("certificate: %w", err)
	}
	if !quiet {
		fmt.Fprintf(stderr, "certificate: %s: %d strategies, %d moves, in %.1f s; check it with analyze mnk verify %s\n",
			path, len(cert.Strategies), cert.Size(), time.Since(start).Seconds(), path)
	}
	return nil
}

func mnkVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check a certificate of mnk solve --certificate by playing its strategies against every reply",
		ArgsUsage: "FILE",
		Description: "Examples:\n" +
			"   analyze mnk solve --board 4x4 --k 4 --certificate 444.cert\n" +
			"   analyze mnk verify 444.cert\n\n" +
			"The check uses only the rules of the game, not the solver: a win is proven by a strategy of the\n" +
			"winner that wins against every defence, a draw by a strategy of each side that never loses.\n" +
			"Exit code 0 if the certificate proves its value, 1 if it does not or cannot be read.",
		OnUsageError: onUsageError,
		Flags:        []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("mnk verify takes one certificate FILE, got %d arguments", c.NArg())
			}
			path := c.Args().First()
			data, _, err := infile.ReadFile(path) // plain, gzip or zstd
			if err != nil {
				return err
			}
			cert, err := mnk.ReadCertificate(bytes.NewReader(data))
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			start := time.Now()
			positions, err := cert.Verify(c.Context)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(map[string]any{
					"file": path, "game": cert.Game.Spec(), "root": cert.Game.String(cert.Root), "value": cert.Value.String(),
					"proven": true, "strategies": len(cert.Strategies), "moves": cert.Size(), "positions": positions,
					"seconds": time.Since(start).Seconds(),
				})
			}
			_, err = fmt.Fprintf(c.App.Writer, "%s: %s from %s: %s, proven (%d strategies, %d moves; %d positions checked in %.2f s)\n",
				path, cert.Game.Spec(), cert.Game.String(cert.Root), cert.Value, len(cert.Strategies), cert.Size(), positions, time.Since(start).Seconds())
			return err
		},
	}
}
