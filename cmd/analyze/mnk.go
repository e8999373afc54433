package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/levels"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/engine/mnk/wide"
	"github.com/woprlabs/wopr/pkg/tasks"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

func init() { gameCommands = append(gameCommands, mnkCommand) }

func mnkCommand() *cli.Command {
	return &cli.Command{
		Name:         "mnk",
		Usage:        "m,n,k-games: m rows, n columns, k in a row (tic-tac-toe is 3x3, k=3)",
		OnUsageError: onUsageError,
		Subcommands:  []*cli.Command{mnkCountCommand(), mnkSolveCommand(), mnkSearchCommand(), mnkMinimaxCommand(), mnkSimulateCommand(), mnkSweepCommand(), mnkVerifyCommand()},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowSubcommandHelp(c)
			}
			return noCommand("mnk", c.Command.Subcommands, c.Args().First())
		},
	}
}

// boardFlags are --board and --k for boards of up to maxSide on a side
// (mnk.MaxSide, or search.MaxBigSide for search).
func boardFlags(maxSide int) []cli.Flag {
	board := fmt.Sprintf("board as `RxC`: R rows and C columns, 1 to %d each", maxSide)
	k := "`K` in a row wins, 1 <= K <= max(R,C) (default: min(R,C))"
	switch {
	case maxSide > wide.MaxSide:
		board += fmt.Sprintf(" (gomoku: 15x15 -k %d)", mnktasks.BigDefaultK)
		k = fmt.Sprintf("`K` in a row wins, 1 <= K <= max(R,C), at most %d on boards over %d (default: min(R,C), %d over %d)",
			search.MaxBigK, mnk.MaxSide, mnktasks.BigDefaultK, mnk.MaxSide)
	case maxSide > mnk.MaxSide:
		k = fmt.Sprintf("`K` in a row wins, 1 <= K <= max(R,C) (default: min(R,C), at most %d on boards over %d)", mnktasks.BigDefaultK, mnk.MaxSide)
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "board", Value: fmt.Sprintf("%dx%d", mnktasks.DefaultRows, mnktasks.DefaultCols), Usage: board},
		&cli.StringFlag{Name: "k", Usage: k},
	}
}

// board reads --board and --k: a board's rows and columns, and k, the
// board's mnktasks.DefaultK without --k. It reads their form only: the
// kind checks the size and k (its Spec), as it does for the web's jobs;
// maxSide says, in the message of a malformed board, what the command
// takes.
func board(c *cli.Context, maxSide int) (rows, cols, k int, err error) {
	rows, cols, err = mnktasks.ParseBoard(c.String("board"))
	if err != nil {
		return 0, 0, 0, usagef("--board %q: want RxC, e.g. 3x3 or 4x5 (R rows, C columns, 1 to %d each)", c.String("board"), maxSide)
	}
	k = mnktasks.DefaultK(rows, cols)
	if c.IsSet("k") {
		if k, err = strconv.Atoi(c.String("k")); err != nil {
			return 0, 0, 0, usagef("--k %q: want a whole number from 1 to %d", c.String("k"), max(rows, cols))
		}
	}
	return rows, cols, k, nil
}

func mnkCountCommand() *cli.Command {
	flags := boardFlags(mnk.MaxSide)
	flags[0].(*cli.StringFlag).Usage = fmt.Sprintf("board as `RxC`: R rows and C columns, up to %d cells (4x5, 3x7, 2x12, 5x5)", levels.MaxCells)
	return &cli.Command{
		Name:  "count",
		Usage: "count the whole game tree exactly: nodes, games by result and length, positions, symmetry classes",
		Description: "Boards of up to " + strconv.Itoa(mnktasks.MaxCountCells) + " cells are counted as a tree (with the game's value);\n" +
			"bigger ones, up to " + strconv.Itoa(levels.MaxCells) + " cells, level by level: each ply's positions, up to symmetry,\n" +
			"sharded over the workers, which pass children to the shard that owns them\n" +
			"through the object store (docs/counting.md).\n\n" +
			"Examples:\n" +
			"   analyze mnk count                      # tic-tac-toe: 255,168 games, 5,478 positions\n" +
			"   analyze mnk count --board 4x4 --json   # 4x4, k=4, as JSON\n" +
			"   analyze mnk count --board 3x6 -k 4     # past 16 cells: level by level",
		OnUsageError: onUsageError,
		Flags: append(append(flags,
			&cli.StringFlag{Name: "method", Value: "auto", Usage: "`METHOD`: tree (up to " + strconv.Itoa(mnktasks.MaxCountCells) + " cells), levels (up to " + strconv.Itoa(levels.MaxCells) + "), auto (tree where it fits), or forward: the plain count in one task, no code shared with the others, for checking them (memory: every position of a ply)"},
			&cli.IntFlag{Name: "split-depth", Value: mnktasks.DefaultCountParams().SplitDepth, Usage: "tree: `PLY` at which the tree is cut into tasks (-1: automatic)"},
			&cli.IntFlag{Name: "shards", Usage: fmt.Sprintf("levels: `N` shards a ply, 1 to %d (0: from the board's size)", mnktasks.MaxShards)},
			&cli.StringFlag{Name: "memory", Value: "1GiB", Usage: "levels: `SIZE` of a task's records (e.g. 512MiB, 2GiB); past it children spill to disk"},
		), jobFlags()...),
		Action: func(c *cli.Context) error {
			rows, cols, k, err := board(c, mnk.MaxSide)
			if err != nil {
				return err
			}
			method := c.String("method")
			switch method {
			case "auto":
				method = "tree"
				if rows*cols > mnktasks.MaxCountCells || rows > mnk.MaxSide || cols > mnk.MaxSide {
					method = "levels"
				}
			case "tree", "levels", "forward":
			default:
				return usagef("--method %q: want tree, levels, forward or auto", method)
			}
			if method == "forward" {
				for _, f := range []string{"shards", "memory", "split-depth"} {
					if c.IsSet(f) {
						return usagef("--%s is not for the forward count", f)
					}
				}
				p := mnktasks.ForwardParams{Rows: rows, Cols: cols, K: k}
				return submit(c, p.Spec)
			}
			if method == "tree" {
				for _, f := range []string{"shards", "memory"} {
					if c.IsSet(f) {
						return usagef("--%s is for the level count (--method levels), not the tree's", f)
					}
				}
				p := mnktasks.CountParams{Rows: rows, Cols: cols, K: k, SplitDepth: c.Int("split-depth")}
				return submit(c, p.Spec)
			}
			if c.IsSet("split-depth") {
				return usagef("--split-depth is for the tree count (--method tree), not the level count")
			}
			mem, err := mnktasks.ParseBytes(c.String("memory"))
			if err != nil {
				return usagef("--memory %v", err)
			}
			p := mnktasks.LevelsParams{Rows: rows, Cols: cols, K: k, Shards: c.Int("shards"), Memory: mem}
			return submit(c, p.Spec)
		},
	}
}

// submit runs the job whose spec the kind checks and makes (a usage
// error if the parameters are wrong: nothing is started), with the client
// options adjusted.
func submit(c *cli.Context, spec func() (tasks.Spec, error), adjust ...func(*client.Options)) error {
	if c.NArg() > 0 {
		return usagef("mnk %s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	s, err := spec()
	if errors.Is(err, tasks.ErrInvalid) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	o, err := options(c)
	if err != nil {
		return err
	}
	for _, f := range adjust {
		f(&o)
	}
	return client.Run(c.Context, o, s)
}

func positionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "moves", Usage: "start from the position after `MOVES`, row,col pairs from 0 separated by spaces, e.g. \"1,1 0,0\" (or a board, as --position)"},
		&cli.StringFlag{Name: "position", Usage: "start from `BOARD`: rows of X, O and '.', top first, separated by '/', e.g. X.O/.X./..."},
	}
}

func mnkSolveCommand() *cli.Command {
	solveDefaults := mnktasks.DefaultSolveParams()
	return &cli.Command{
		Name:  "solve",
		Usage: "the exact value of the game (win, draw or loss for the first player), best first moves and a principal variation",
		Description: "Examples:\n" +
			"   analyze mnk solve --board 5x5 --k 4               # a draw\n" +
			"   analyze mnk solve --board 3x4 --k 3 --root-moves  # the value of every first move\n" +
			"   analyze mnk solve --board 7x7 --k 5               # a draw, by proof-number search\n" +
			"   analyze mnk solve --board 9x9 --k 5 --nodes 100000000   # each first move, as far as 10^8 nodes take it\n\n" +
			"--method auto picks alphabeta for k of 3 or less on boards of up to 36 cells, pns (proof-number\n" +
			"search) otherwise. alphabeta takes boards of up to 36 cells (6x6, 5x7), pns up to 11x11. Past 8x8\n" +
			"the tasks ask whether X wins after each first move and whether O wins at the root, with no\n" +
			"certificate, --root-moves or principal variation (docs/games.md).",
		OnUsageError: onUsageError,
		Flags: append(append(boardFlags(wide.MaxSide),
			&cli.StringFlag{Name: "method", Value: solveDefaults.Method, Usage: "`METHOD` of the solver: pns, alphabeta or auto"},
			&cli.IntFlag{Name: "split-depth", Value: solveDefaults.SplitDepth, Usage: "`PLY` of the tasks, 0 (one task, the root) to 3 (-1: the root for pns up to 7x8 without --root-moves, else the first moves)"},
			&cli.IntFlag{Name: "tt-mb", Value: solveDefaults.TTMB, Usage: "transposition table of each worker process in `MB` (its slots share it)"},
			&cli.BoolFlag{Name: "root-moves", Usage: "report the value of every first move"},
			&cli.StringFlag{Name: "certificate", Usage: "write to `FILE` the strategies that prove the value (with pairings, by --method pns), for analyze mnk verify"},
			&cli.IntFlag{Name: "certificate-positions", Value: mnktasks.DefaultCertificatePositions, Usage: "give up a certificate, or a part of one, past `N` positions (about 100 bytes of memory each, more with pairings)"},
			&cli.Uint64Flag{Name: "nodes", Usage: "stop each task of a pns job of questions after `N` nodes and report how far it got (0: no bound)"},
		), jobFlags()...),
		Action: func(c *cli.Context) error {
			rows, cols, k, err := board(c, wide.MaxSide)
			if err != nil {
				return err
			}
			p := mnktasks.SolveParams{Rows: rows, Cols: cols, K: k, SplitDepth: c.Int("split-depth"), TTMB: c.Int("tt-mb"),
				RootMoves: c.Bool("root-moves"), Method: c.String("method"), Nodes: c.Uint64("nodes")}
			var certify []func(*client.Options)
			if path := c.String("certificate"); path != "" {
				p.Certificate, p.CertificatePositions = true, c.Int("certificate-positions")
				if err := outputPaths(c, nil, "certificate"); err != nil {
					return err
				}
				certify = append(certify, func(o *client.Options) {
					o.Outputs = map[string]string{"certificate": path}
					o.Check = func(report []byte) error { return certificateWritten(o.Stderr, o.Quiet, path, report) }
				})
			}
			return submit(c, p.Spec, certify...)
		},
	}
}

// certificateWritten tells, on stderr unless quiet, what the certificate
// that the solve job wrote to path holds (its report's "certificate").
func certificateWritten(stderr io.Writer, quiet bool, path string, report []byte) error {
	var rep struct {
		Certificate *mnktasks.SolveCertificate `json:"certificate"`
	}
	if err := json.Unmarshal(report, &rep); err != nil || rep.Certificate == nil {
		return fmt.Errorf("certificate: the job's report does not describe it (%v)", err)
	}
	if quiet {
		return nil
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	c := rep.Certificate
	parts := ""
	if c.Parts > 0 {
		parts = fmt.Sprintf(" in %d parts", c.Parts)
	}
	_, err := fmt.Fprintf(stderr, "certificate: %s: %d strategies%s, %d moves, %d pairings, in %.1f s; check it with analyze mnk verify %s\n",
		path, c.Strategies, parts, c.Moves, c.Pairings, c.Seconds, path)
	return err
}

func mnkSearchCommand() *cli.Command {
	return &cli.Command{
		Name:  "search",
		Usage: "depth-limited search from a position: best move, score, principal variation, nodes and branching per iteration",
		Description: "Examples:\n" +
			"   analyze mnk search --board 3x3 --moves \"1,1 0,0\" --depth 9\n" +
			"   analyze mnk search --board 8x8 --k 5 --time 2s\n" +
			"   analyze mnk search --board 15x15 --k 5 --moves \"7,7 7,8 8,8\" --time 2s   # gomoku\n\n" +
			"Boards of more than 8 on a side (up to 19x19, k up to 8) are searched from the empty cells within\n" +
			"two rows and columns of a stone (the centre on an empty board).",
		OnUsageError: onUsageError,
		Flags: append(append(append(boardFlags(search.MaxBigSide), positionFlags()...),
			&cli.IntFlag{Name: "depth", Usage: "search `D` plies deep (0: as deep as --time allows)"},
			&cli.StringFlag{Name: "time", Usage: "iterative deepening until `T` has passed, e.g. 500ms or 2s"},
		), jobFlags()...),
		Action: func(c *cli.Context) error {
			rows, cols, k, err := board(c, search.MaxBigSide)
			if err != nil {
				return err
			}
			var budget time.Duration
			if c.IsSet("time") {
				if budget, err = time.ParseDuration(c.String("time")); err != nil || budget <= 0 {
					return usagef("--time %q: want a duration such as 500ms or 2s", c.String("time"))
				}
			}
			p := mnktasks.SearchParams{Rows: rows, Cols: cols, K: k, Moves: c.String("moves"), Position: c.String("position"),
				Depth: c.Int("depth"), TimeSeconds: budget.Seconds()}
			return submit(c, p.Spec)
		},
	}
}

func mnkMinimaxCommand() *cli.Command {
	return &cli.Command{
		Name:  "minimax",
		Usage: "the textbook minimax with its call counter (tic-tac-toe: 340,858 calls; 66,275 with --cutoff)",
		Description: "Examples:\n" +
			"   analyze mnk minimax --cutoff\n" +
			"   analyze mnk minimax --moves \"1,1 0,0\" --depth-score",
		OnUsageError: onUsageError,
		Flags: append(append(append(boardFlags(mnk.MaxSide), positionFlags()...),
			&cli.BoolFlag{Name: "cutoff", Usage: "stop examining moves once the best score is a win"},
			&cli.BoolFlag{Name: "depth-score", Usage: "score a win 10 - depth and a loss depth - 10: take the quickest win, delay a loss"},
		), jobFlags()...),
		Action: func(c *cli.Context) error {
			rows, cols, k, err := board(c, mnk.MaxSide)
			if err != nil {
				return err
			}
			p := mnktasks.MinimaxParams{Rows: rows, Cols: cols, K: k, Moves: c.String("moves"), Position: c.String("position"),
				Cutoff: c.Bool("cutoff"), DepthScore: c.Bool("depth-score")}
			return submit(c, p.Spec)
		},
	}
}
