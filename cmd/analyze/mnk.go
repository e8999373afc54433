package main

import (
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/queue"
	"github.com/woprlabs/wopr/pkg/tasks/mnkjobs"
)

func init() { gameCommands = append(gameCommands, mnkCommand) }

func mnkCommand() *cli.Command {
	return &cli.Command{
		Name:         "mnk",
		Usage:        "m,n,k-games: m rows, n columns, k in a row (tic-tac-toe is 3x3, k=3)",
		OnUsageError: onUsageError,
		Subcommands:  []*cli.Command{mnkCountCommand()},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowSubcommandHelp(c)
			}
			return usagef("mnk: no command %q (see analyze mnk --help)", c.Args().First())
		},
	}
}

func boardFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "board", Value: "3x3", Usage: "board as `RxC`: R rows and C columns, 1 to 8 each"},
		&cli.StringFlag{Name: "k", Usage: "`K` in a row wins, 1 <= K <= max(R,C) (default: min(R,C))"},
	}
}

var boardRE = regexp.MustCompile(`^([0-9]+)x([0-9]+)$`)

// board parses --board and --k.
func board(c *cli.Context) (rows, cols, k int, err error) {
	m := boardRE.FindStringSubmatch(c.String("board"))
	if m == nil {
		return 0, 0, 0, usagef("--board %q: want RxC, e.g. 3x3 or 4x5 (R rows, C columns, 1 to %d each)", c.String("board"), mnk.MaxSide)
	}
	rows, err1 := strconv.Atoi(m[1])
	cols, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || rows < 1 || cols < 1 || rows > mnk.MaxSide || cols > mnk.MaxSide {
		return 0, 0, 0, usagef("--board %s: rows and columns must be 1 to %d", c.String("board"), mnk.MaxSide)
	}
	k = min(rows, cols)
	if c.IsSet("k") {
		k, err = strconv.Atoi(c.String("k"))
		if err != nil {
			return 0, 0, 0, usagef("--k %q: want a whole number from 1 to %d", c.String("k"), max(rows, cols))
		}
	}
	if _, err := mnk.New(rows, cols, k); err != nil {
		return 0, 0, 0, usagef("%v", err)
	}
	return rows, cols, k, nil
}

func mnkCountCommand() *cli.Command {
	return &cli.Command{
		Name:  "count",
		Usage: "count the whole game tree exactly: nodes, games by result and length, positions, symmetry classes, value",
		Description: "Examples:\n" +
			"   analyze mnk count                      # tic-tac-toe: 255,168 games, 5,478 positions\n" +
			"   analyze mnk count --board 4x4 --json   # 4x4, k=4, as JSON",
		OnUsageError: onUsageError,
		Flags: append(append(boardFlags(),
			&cli.IntFlag{Name: "split-depth", Value: -1, Usage: "`PLY` at which the tree is cut into tasks (-1: automatic)"},
		), jobFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("mnk count takes no arguments, got %q", c.Args().First())
			}
			rows, cols, k, err := board(c)
			if err != nil {
				return err
			}
			p := mnkjobs.CountParams{Rows: rows, Cols: cols, K: k, SplitDepth: c.Int("split-depth")}
			if _, err := p.Validate(); err != nil {
				return usagef("%v", err)
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			params, _ := json.Marshal(p)
			return client.Run(c.Context, o, queue.Spec{Kind: mnkjobs.Count{}.Name(), Params: params})
		},
	}
}
