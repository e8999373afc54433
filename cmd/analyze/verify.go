package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/infile"
	mnkcert "github.com/woprlabs/wopr/pkg/engine/mnk/cert"
)

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
			"FILE - reads the certificate from stdin.\n" +
			"Exit code 0 if the certificate proves its value, 1 if it does not or cannot be read.",
		OnUsageError: onUsageError,
		Flags:        []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("mnk verify takes one certificate FILE, got %d arguments", c.NArg())
			}
			path := c.Args().First()
			data, _, err := infile.ReadFile(path) // plain, gzip or zstd; - is stdin
			path = infile.Name(path)
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
				return writeJSON(c.App.Writer, map[string]any{
					"file": path, "game": cert.Game.Spec(), "root": cert.Game.String(cert.Root), "value": cert.Value.String(),
					"proven": true, "strategies": len(cert.Strategies), "moves": cert.Size(), "pairings": cert.Pairings(), "matchings": cert.Matchings(), "parts": cert.Parts(), "positions": positions,
					"seconds": time.Since(start).Seconds(),
				})
			}
			matchings := ""
			if n := cert.Matchings(); n > 0 {
				matchings = fmt.Sprintf(", %d matchings", n)
			}
			parts := ""
			if n := cert.Parts(); n > 0 {
				parts = fmt.Sprintf(" in %d parts", n)
			}
			_, err = fmt.Fprintf(c.App.Writer, "%s: %s from %s: %s, proven (%d strategies%s, %d moves, %d pairings%s; %d positions checked in %.2f s)\n",
				path, cert.Game.Spec(), cert.Game.String(cert.Root), cert.Value, len(cert.Strategies), parts, cert.Size(), cert.Pairings(), matchings, positions, time.Since(start).Seconds())
			return err
		},
	}
}
