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

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	mnkcert "github.com/woprlabs/wopr/pkg/engine/mnk/cert"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// writeCertificate extracts, in this process, the strategies that prove the
// value of g's empty board, with a solver of the job's method (mnktasks.MethodPNS
// or MethodAlphaBeta), checks that they prove the value the job reported,
// and writes them to path (through a temporary file, so that a certificate
// is never half written).
func writeCertificate(ctx context.Context, stderr io.Writer, quiet bool, path string, g *mnk.Game, method string, ttMB, maxPositions int, report []byte) error {
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
		ttMB = mnktasks.DefaultTTMB
	}
	start := time.Now()
	last := start
	progress := func(n int) {
		if !quiet && time.Since(last) >= 2*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "certificate: %d positions so far\n", n)
		}
	}
	var cert *mnkcert.Certificate
	var err error
	hint := "a strategy must answer every reply of the other side, and alpha-beta certificates grow fast past 4x5; --method pns gives smaller ones (docs/games.md)"
	if method == mnktasks.MethodPNS {
		cert, err = pns.NewCertificate(ctx, pns.New(g, ttMB<<20), mnk.Position{}, maxPositions, progress)
		hint = "a strategy must answer every reply of the other side until a pairing or the end of the game (docs/games.md)"
	} else {
		cert, err = solve.NewCertificate(ctx, solve.New(g, ttMB<<20), mnk.Position{}, maxPositions, progress)
	}
	if errors.Is(err, mnkcert.ErrTooBig) {
		return fmt.Errorf("certificate: %w (--certificate-positions): %s", err, hint)
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
		fmt.Fprintf(stderr, "certificate: %s: %d strategies, %d moves, %d pairings, in %.1f s; check it with analyze mnk verify %s\n",
			path, len(cert.Strategies), cert.Size(), cert.Pairings(), time.Since(start).Seconds(), path)
	}
	return nil
}

func mnkVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check a certificate of mnk solve --certificate by playing its strategies against every reply",
		ArgsUsage: "FILE",
		Description: "Examples:\n" +
			"   analyze mnk solve --board 7x7 --k 5 --certificate 775.cert\n" +
			"   analyze mnk verify 775.cert\n\n" +
			"The check uses only the rules of the game, not the solver: a win is proven by a strategy of the\n" +
			"winner that wins against every defence, a draw by a strategy of each side that never loses. A\n" +
			"strategy that does not lose may end in a pairing: pairs of empty cells such that every line the\n" +
			"other side could still fill holds a pair, which the check verifies line by line.\n" +
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
			cert, err := mnkcert.Read(bytes.NewReader(data))
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
					"proven": true, "strategies": len(cert.Strategies), "moves": cert.Size(), "pairings": cert.Pairings(), "positions": positions,
					"seconds": time.Since(start).Seconds(),
				})
			}
			_, err = fmt.Fprintf(c.App.Writer, "%s: %s from %s: %s, proven (%d strategies, %d moves, %d pairings; %d positions checked in %.2f s)\n",
				path, cert.Game.Spec(), cert.Game.String(cert.Root), cert.Value, len(cert.Strategies), cert.Size(), cert.Pairings(), positions, time.Since(start).Seconds())
			return err
		},
	}
}
