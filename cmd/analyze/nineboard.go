package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/agent"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/player"
	"github.com/woprlabs/wopr/pkg/tasks"
	nineboardtasks "github.com/woprlabs/wopr/pkg/tasks/nineboard"
)

func init() { gameCommands = append(gameCommands, nineboardCommand) }

func nineboardCommand() *cli.Command {
	return &cli.Command{
		Name:         "nineboard",
		Usage:        "nine-board tic-tac-toe: perft, an agent for the referee protocol, matches between players, play in the terminal",
		OnUsageError: onUsageError,
		Subcommands:  []*cli.Command{nineboardPerftCommand(), nineboardAgentCommand(), nineboardMatchCommand(), nineboardPlayCommand()},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowSubcommandHelp(c)
			}
			return noCommand("nineboard", c.Command.Subcommands, c.Args().First())
		},
	}
}

func variantFlag() cli.Flag {
	return &cli.StringFlag{Name: "variant", Value: "first-triple", Usage: "rules: `first-triple` (first three in a row in any board wins) or ultimate"}
}

func variant(c *cli.Context) (nineboard.Variant, error) {
	v, err := nineboard.ParseVariant(c.String("variant"))
	if err != nil {
		return v, usagef("--variant: %v", err)
	}
	return v, nil
}

func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("nineboard %s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	return nil
}

// maxPerftDepth keeps perft within hours: each ply multiplies the count
// by about eight, and depth 10 takes about a minute (docs/benchmarks.md).
const maxPerftDepth = 12

func nineboardPerftCommand() *cli.Command {
	return &cli.Command{
		Name:  "perft",
		Usage: "count the move sequences of exactly D moves from the empty position (81 first moves)",
		Description: "Examples:\n" +
			"   analyze nineboard perft --depth 6                    # 4,015,008\n" +
			"   analyze nineboard perft --depth 6 --variant ultimate # 4,020,960",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "depth", Value: -1, Usage: fmt.Sprintf("`D` moves, 0 to %d (required)", maxPerftDepth)},
			variantFlag(),
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			depth := c.Int("depth")
			if !c.IsSet("depth") || depth < 0 || depth > maxPerftDepth {
				return usagef("--depth: want a whole number of moves from 0 to %d", maxPerftDepth)
			}
			v, err := variant(c)
			if err != nil {
				return err
			}
			start := time.Now()
			b := nineboard.NewBoard(v)
			var nodes uint64
			if depth == 0 {
				nodes = 1
			} else {
				// Subtree by subtree, so that an interrupt is heard.
				var buf [81]nineboard.Move
				for _, m := range b.Moves(buf[:0]) {
					if err := c.Context.Err(); err != nil {
						return err
					}
					b.Make(m)
					nodes += b.Perft(depth - 1)
					b.Unmake()
				}
			}
			el := time.Since(start)
			if c.Bool("json") {
				return writeJSON(os.Stdout, map[string]any{
					"variant": v.String(), "depth": depth, "nodes": nodes,
					"elapsed_seconds": el.Seconds(), "nodes_per_second": float64(nodes) / max(el.Seconds(), 1e-9),
				})
			}
			fmt.Printf("nine-board tic-tac-toe (%s) perft %d: %s nodes in %.3f s\n", v, depth, tasks.Thousands(nodes), el.Seconds())
			return nil
		},
	}
}

func nineboardAgentCommand() *cli.Command {
	return &cli.Command{
		Name:  "agent",
		Usage: "connect to a referee and play first-triple games with its line protocol",
		Description: "The agent connects to the referee at HOST:PORT, plays every game it is given and returns\n" +
			"after end. or when the referee closes the connection. Each move is logged on stderr with its\n" +
			"search depth, nodes, nodes/s, score and principal variation.\n\n" +
			"Example:\n" +
			"   analyze nineboard agent --port 12345 --move-time 500ms",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Usage: "referee's `PORT` (required)"},
			&cli.StringFlag{Name: "host", Value: "localhost", Usage: "referee's `HOST`"},
			&cli.DurationFlag{Name: "move-time", Usage: "cap `D` on the thinking time per move, e.g. 500ms", DefaultText: "a safe share of the clock"},
			quietFlag,
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			port := c.Int("port")
			if !c.IsSet("port") || port < 1 || port > 65535 {
				return usagef("--port: want the referee's port, 1 to 65535")
			}
			if c.String("host") == "" {
				return usagef("--host: want a host name or address")
			}
			mt := c.Duration("move-time")
			if mt < 0 || mt > player.MaxMoveTime {
				return usagef("--move-time %v: want 0 (automatic) to %v", mt, player.MaxMoveTime)
			}
			level := slog.LevelInfo
			if c.Bool("quiet") {
				level = slog.LevelWarn
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			addr := net.JoinHostPort(c.String("host"), strconv.Itoa(port))
			st, err := agent.Dial(c.Context, addr, agent.Config{MoveTime: mt, Log: log})
			if st.Moves == 0 && st.Games == 0 && err != nil {
				return err // never connected, or nothing played
			}
			fmt.Fprintf(os.Stderr, "analyze: %d games: %d won, %d drawn, %d lost; %d moves, slowest %v\n",
				st.Games, st.Wins, st.Draws, st.Losses, st.Moves, st.Slowest.Round(time.Millisecond))
			return err
		},
	}
}

func nineboardMatchCommand() *cli.Command {
	return &cli.Command{
		Name:  "match",
		Usage: "play games between two players as a job: wins, draws and losses per side, game length, nodes per move",
		Description: "Players: random, engine:depth=D (1 to 30 plies), engine:time=T (per move, e.g. 20ms).\n" +
			"The games depend only on --seed (each game is seeded by the seed and its index), whatever the\n" +
			"number of workers; players with a time limit search as deep as the machine allows.\n\n" +
			"Examples:\n" +
			"   analyze nineboard match --x engine:depth=6 --o random --games 200\n" +
			"   analyze nineboard match --x engine:time=20ms --o engine:depth=4 --variant ultimate --games 50 --seed 7",
		OnUsageError: onUsageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "x", Value: "engine:depth=6", Usage: "`PLAYER` of x: random, engine:depth=D or engine:time=T"},
			&cli.StringFlag{Name: "o", Value: "random", Usage: "`PLAYER` of o"},
			&cli.IntFlag{Name: "games", Value: 100, Usage: fmt.Sprintf("`N` games, 1 to %d", nineboardtasks.MaxGames)},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`S` seeds every game's random moves"},
			&cli.IntFlag{Name: "games-per-task", Usage: "`G` games in each task (0: about 32 tasks)"},
			variantFlag(),
		}, jobFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			p := nineboardtasks.MatchParams{
				X: c.String("x"), O: c.String("o"), Games: c.Int("games"), Seed: c.Uint64("seed"),
				Variant: c.String("variant"), GamesPerTask: c.Int("games-per-task"),
			}
			spec, err := p.Spec()
			if err != nil {
				return usagef("%v", err)
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			return client.Run(c.Context, o, spec)
		},
	}
}
