package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

func mnkSimulateCommand() *cli.Command {
	defaults := mnktasks.DefaultSimulateParams()
	return &cli.Command{
		Name:  "simulate",
		Usage: "play many games between two players as a job: results, first moves, game length, nodes per move, exact odds",
		Description: "Players: random (uniform among the empty cells), perfect (exact play on boards of up to 16 cells:\n" +
			"the best value, the quickest win or the slowest loss, then the first cell row-major),\n" +
			"engine:depth=D, engine:time=T. Game i draws its random numbers from (--seed, i): the same games\n" +
			"whatever the number of workers or --games-per-task. --exact (boards of up to 16 cells, players\n" +
			"random, perfect or engine:depth) adds the exact odds, by enumerating every choice of the random\n" +
			"players, and how far the simulated counts lie from them in standard errors.\n\n" +
			"Examples:\n" +
			"   analyze mnk simulate -x perfect -o random --games 1200 --exact\n" +
			"   analyze mnk simulate -x random -o random --games 100000 --board 4x4",
		OnUsageError: onUsageError,
		Flags: append(append(boardFlags(mnk.MaxSide),
			&cli.StringFlag{Name: "x", Usage: "the first player, `PLAYER`", Value: defaults.X},
			&cli.StringFlag{Name: "o", Usage: "the second player, `PLAYER`", Value: defaults.O},
			&cli.IntFlag{Name: "games", Usage: fmt.Sprintf("`N` games, 1 to %d", mnktasks.MaxSimulateGames), Value: defaults.Games},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed `S`: the same seed plays the same games", Value: defaults.Seed},
			&cli.BoolFlag{Name: "exact", Usage: "add the exact odds (boards of up to 16 cells)"},
			&cli.IntFlag{Name: "games-per-task", Usage: "`G` games per task", DefaultText: "about 64 tasks, at least 100 games each"},
		), jobFlags()...),
		Action: func(c *cli.Context) error {
			rows, cols, k, err := board(c, mnk.MaxSide)
			if err != nil {
				return err
			}
			p := mnktasks.SimulateParams{Rows: rows, Cols: cols, K: k, X: c.String("x"), O: c.String("o"), Games: c.Int("games"),
				Seed: c.Uint64("seed"), GamesPerTask: c.Int("games-per-task"), Exact: c.Bool("exact")}
			return submit(c, p.Spec)
		},
	}
}
