package test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyProc is analyze running on a pseudo-terminal, as a person runs it:
// stdin, stdout and stderr are the terminal.
type ptyProc struct {
	cmd    *exec.Cmd
	tty    *os.File // the terminal's master side
	mu     sync.Mutex
	out    []byte
	grew   chan struct{} // a read added output
	closed chan struct{} // the terminal has nothing more to read
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

// startPty runs analyze with args on a new terminal, with the environment
// less NO_COLOR, plus env.
func startPty(t *testing.T, env []string, args ...string) *ptyProc {
	t.Helper()
	cmd := exec.Command(binary("analyze"), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 60, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	p := &ptyProc{cmd: cmd, tty: tty, grew: make(chan struct{}, 1), closed: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(p.closed)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			p.mu.Unlock()
			select {
			case p.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return // EIO once the process has exited and closed its side
			}
		}
	}()
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		tty.Close()
		<-p.closed
		if t.Failed() {
			t.Logf("--- analyze %s on a terminal wrote:\n%s", strings.Join(args, " "), p.output())
		}
	})
	return p
}

func (p *ptyProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out)
}

// expect waits, for at most a minute, until the output from offset from
// holds one of wants; it returns which, and the offset after it.
func (p *ptyProc) expect(t *testing.T, from int, wants ...string) (int, int) {
	t.Helper()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for final := false; ; {
		out := p.output()
		best, at := -1, 0
		for i, w := range wants {
			if j := strings.Index(out[from:], w); j >= 0 && (best < 0 || j < at) {
				best, at = i, j
			}
		}
		if best >= 0 {
			return best, from + at + len(wants[best])
		}
		if final {
			t.Fatalf("the terminal closed without any of %q after offset %d", wants, from)
		}
		select {
		case <-p.grew:
		case <-p.closed:
			final = true // look once more: the last read may not have been seen
		case <-deadline.C:
			t.Fatalf("no %q after a minute", wants)
		}
	}
}

func (p *ptyProc) send(t *testing.T, s string) {
	t.Helper()
	if _, err := p.tty.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// exitCode waits for the process, for at most a minute.
func (p *ptyProc) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		t.Fatal("analyze did not exit within a minute")
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		return exit.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

// pipe runs analyze with stdin from in and stdout and stderr to pipes.
func pipe(t *testing.T, in string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary("analyze"), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(in)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

const prompt = "quits): "

var resultLine = regexp.MustCompile(`(?m)^(X wins|O wins|draw)`)

// A person plays 3x3 against random on a terminal, trying cells 0 to 8 in
// turn (a taken cell is refused and the next tried), to the end of the
// game: the board in colour, drawn in place, then the result, another game
// offered and declined, and the tally, exit 0.
func TestPlayOnTerminal(t *testing.T) {
	runsBinaries(t)
	p := startPty(t, nil, "play", "-o", "random", "--seed", "3")
	off := 0
	for cell := 0; ; cell++ {
		which, end := p.expect(t, off, prompt, "another game? (y/n): ")
		if which == 1 {
			p.send(t, "n\n")
			p.expect(t, end, "tally: ")
			break
		}
		if cell > 8 {
			t.Fatal("the game is not over after 9 cells")
		}
		p.send(t, fmt.Sprintf("%d\n", cell))
		off = end
	}
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	out := p.output()
	if !ansi.MatchString(out) {
		t.Error("no colour on a terminal")
	}
	if !strings.Contains(out, "\x1b[1A\x1b[2K") {
		t.Error("no board drawn in place on a terminal")
	}
	if !resultLine.MatchString(stripANSI(out)) || !strings.Contains(out, "tally: 1 game, X (human) won ") {
		t.Error("no result or tally")
	}
}

// ansi finds the escape sequences of colour; csi those of colour and of
// the cursor.
var (
	ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")
	csi  = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
)

func stripANSI(s string) string {
	return strings.ReplaceAll(csi.ReplaceAllString(s, ""), "\r\n", "\n")
}

// NO_COLOR turns the colour off on a terminal.
func TestPlayNoColor(t *testing.T) {
	runsBinaries(t)
	p := startPty(t, []string{"NO_COLOR=1"}, "play", "-o", "random")
	_, off := p.expect(t, 0, prompt)
	p.send(t, "q\n")
	p.expect(t, off, "tally: 0 games")
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if out := p.output(); strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences with NO_COLOR set:\n%q", out)
	}
}

// On a terminal: q quits with exit 0, and so does the end of input
// (Ctrl-D); Ctrl-C interrupts a person's turn with exit 130. Each prints
// the tally.
func TestPlayQuitEndOfInputInterrupt(t *testing.T) {
	runsBinaries(t)
	for _, c := range []struct {
		name, keys, says string
		code             int
	}{
		{"q", "q\n", "quit: the game in progress is not counted", 0},
		{"Ctrl-D", "\x04", "end of input: the game in progress is not counted", 0},
		{"Ctrl-C", "\x03", "analyze: context canceled", 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startPty(t, nil, "nineboard", "play", "-o", "random")
			_, off := p.expect(t, 0, prompt)
			p.send(t, "5\n") // a cell of the board to play in
			_, off = p.expect(t, off, prompt)
			p.send(t, c.keys)
			p.expect(t, off, "tally: 0 games")
			p.expect(t, off, c.says)
			if code := p.exitCode(t); code != c.code {
				t.Errorf("exit code %d, want %d", code, c.code)
			}
		})
	}
}

// Through pipes: the same game, in plain text, the person's lines echoed
// after their prompts; the end of input mid-game exits 0 with the tally.
func TestPlayThroughPipe(t *testing.T) {
	runsBinaries(t)
	out, stderr, code := pipe(t, "0\n1\n2\n3\n4\n5\n6\n7\n8\n", nil, "play", "-o", "random", "--seed", "3")
	if code != 0 || stderr != "" {
		t.Fatalf("exit code %d, stderr %q; want 0 and nothing", code, stderr)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences through a pipe:\n%q", out)
	}
	if !resultLine.MatchString(out) || !strings.Contains(out, "tally: 1 game, X (human) won ") || !strings.Contains(out, prompt+"0\n") {
		t.Errorf("want a result, the tally and the echoed moves:\n%s", out)
	}
	// The same game on a terminal.
	p := startPty(t, nil, "play", "-o", "random", "--seed", "3")
	off := 0
	for cell := 0; ; cell++ {
		which, end := p.expect(t, off, prompt, "another game? (y/n): ")
		if which == 1 {
			p.send(t, "n\n")
			break
		}
		if cell > 8 {
			t.Fatal("the game is not over after 9 cells")
		}
		p.send(t, fmt.Sprintf("%d\n", cell))
		off = end
	}
	p.exitCode(t)
	if got, want := movesOf(stripANSI(p.output())), movesOf(out); got != want {
		t.Errorf("moves on a terminal %q, through a pipe %q", got, want)
	}

	out, _, code = pipe(t, "4\n", nil, "play", "-o", "random")
	if code != 0 || !strings.Contains(out, "end of input") || !strings.HasSuffix(out, "tally: 0 games, X (human) won 0, O (random) won 0, 0 drawn\n") {
		t.Errorf("end of input mid-game: exit code %d, output\n%s", code, out)
	}
	// Two people share the keyboard.
	out, _, code = pipe(t, "4\n0\nq\n", nil, "play", "-x", "human", "-o", "human")
	if code != 0 || !strings.Contains(out, "X plays 1,1 (4)") || !strings.Contains(out, "O plays 0,0 (0)") {
		t.Errorf("two people: exit code %d, output\n%s", code, out)
	}
	// A pipe is plain text, whatever NO_COLOR says.
	out, _, _ = pipe(t, "q\n", []string{"NO_COLOR="}, "play", "-o", "random")
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences through a pipe with NO_COLOR empty:\n%q", out)
	}
}

var movesRE = regexp.MustCompile(`(?m)^moves: (.*)$`)

func movesOf(out string) string {
	var all []string
	for _, m := range movesRE.FindAllStringSubmatch(out, -1) {
		all = append(all, m[1])
	}
	return strings.Join(all, "\n")
}

// A person plays nine-board through a pipe, typing every move from 1:1 to
// 9:9 over and over (an illegal one is refused, the next tried), to the
// end of the game.
func TestNineboardPlayThroughPipe(t *testing.T) {
	runsBinaries(t)
	var all strings.Builder
	for b := 1; b <= 9; b++ {
		for c := 1; c <= 9; c++ {
			fmt.Fprintf(&all, "%d:%d\n", b, c)
		}
	}
	in := strings.Repeat(all.String(), 45) // 81 lines find a legal move; X makes at most 41
	for _, v := range []string{"first-triple", "ultimate"} {
		out, stderr, code := pipe(t, in, nil, "nineboard", "play", "-o", "random", "--variant", v, "--seed", "2")
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit code %d, stderr %q", v, code, stderr)
		}
		if !resultLine.MatchString(out) || !strings.Contains(out, "tally: 1 game") || !strings.Contains(out, ">board ") {
			t.Errorf("%s: want a result, the tally and a board to play in:\n%s", v, out)
		}
	}
}

// Two programs at the terminal play a match's games: the same seed, the
// same games, whose moves hash to the match's digest.
func TestNineboardPlayPlaysTheMatchGames(t *testing.T) {
	runsBinaries(t)
	for _, v := range []string{"first-triple", "ultimate"} {
		args := []string{"-x", "engine:depth=3", "-o", "random", "--games", "6", "--seed", "5", "--variant", v}
		out, stderr, code := pipe(t, "", nil, append(append([]string{"nineboard", "play"}, args...), "--delay", "0")...)
		if code != 0 {
			t.Fatalf("%s: play: exit code %d: %s", v, code, stderr)
		}
		h := fnv.New64a()
		games := 0
		for _, m := range movesRE.FindAllStringSubmatch(out, -1) {
			h.Write([]byte(m[1] + "\n"))
			games++
		}
		report, stderr, code := pipe(t, "", nil, append(append([]string{"nineboard", "match"}, args...), "--json", "--quiet", "--data", t.TempDir())...)
		if code != 0 {
			t.Fatalf("%s: match: exit code %d: %s", v, code, stderr)
		}
		want := regexp.MustCompile(`"digest":"([0-9a-f]+)"`).FindStringSubmatch(report)
		if games != 6 || want == nil || fmt.Sprintf("%016x", h.Sum64()) != want[1] {
			t.Errorf("%s: %d games hashing to %016x; the match's digest %v", v, games, h.Sum64(), want)
		}
	}
}

// Without a person, a series of programs is the same games for the same
// seed, and its tally adds up.
func TestPlaySeries(t *testing.T) {
	runsBinaries(t)
	args := []string{"play", "-x", "random", "-o", "random", "--games", "12", "--delay", "0", "--seed", "4"}
	a, _, code := pipe(t, "", nil, args...)
	b, _, _ := pipe(t, "", nil, args...)
	if code != 0 || a != b {
		t.Fatalf("exit code %d; the same seed played the same games: %v", code, a == b)
	}
	m := regexp.MustCompile(`tally: 12 games, X \(random\) won (\d+), O \(random\) won (\d+), (\d+) drawn\n$`).FindStringSubmatch(a)
	if m == nil || len(resultLine.FindAllString(a, -1)) != 12 {
		t.Errorf("want 12 results and the tally:\n%s", a[max(0, len(a)-300):])
	}
}

// Bad flags are usage errors: exit 2, one line, nothing played.
func TestPlayBadFlags(t *testing.T) {
	runsBinaries(t)
	cases := []usageCase{
		{[]string{"play", "-x", "nobody"}, `-x: player "nobody"`},
		{[]string{"play", "-o", "engine:depth=0"}, "depth must be a whole number from 1 to"},
		{[]string{"play", "-o", "engine:time=2h"}, "time must be a duration"},
		{[]string{"play", "--games", "0"}, "--games 0: want 1 to"},
		{[]string{"play", "--delay", "-1s"}, "--delay -1s"},
		{[]string{"play", "--board", "9x9"}, "1 to 8"},
		{[]string{"play", "--board", "3x3", "--k", "4"}, "1 <= k <= 3"},
		{[]string{"play", "--board", "4x5", "-o", "perfect"}, "perfect plays boards of up to 16 cells"},
		{[]string{"play", "--board", "5x5", "-x", "perfect", "-o", "random"}, "perfect plays boards of up to 16 cells"},
		{[]string{"play", "extra"}, "no arguments"},
		{[]string{"nineboard", "play", "-x", "perfect"}, `-x: player "perfect"`},
		{[]string{"nineboard", "play", "-o", "engine:depth=31"}, "1 to 30"},
		{[]string{"nineboard", "play", "--variant", "misere"}, "first-triple or ultimate"},
		{[]string{"nineboard", "play", "--games", "-1"}, "--games -1"},
		{[]string{"nineboard", "play", "--delay", "2m"}, "--delay 2m0s"},
	}
	expectUsageErrors(t, cases, func([]string) bool { return false })
}

// Against the perfect player (from pkg/player), a person cannot win: cells
// 1 to 9 in turn lose or draw, in both seats; the hint is perfect play's.
func TestPlayAgainstPerfect(t *testing.T) {
	runsBinaries(t)
	in := "h\n1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	for _, args := range [][]string{{"play"}, {"play", "-x", "perfect", "-o", "human"}} {
		out, stderr, code := pipe(t, in, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit code %d: %s", args, code, stderr)
		}
		if !strings.Contains(out, "(perfect)\n") || !strings.Contains(out, "tally: 1 game") || strings.Contains(out, "won 1, O (perfect)") || strings.Contains(out, "O (human) won 1") {
			t.Errorf("%v: want a perfect hint and no win for the person:\n%s", args, out)
		}
	}
	out, _, code := pipe(t, "", nil, "play", "-x", "perfect", "-o", "perfect", "--games", "2", "--delay", "0")
	if code != 0 || !strings.HasSuffix(out, "tally: 2 games, X (perfect) won 0, O (perfect) won 0, 2 drawn\n") {
		t.Errorf("perfect against perfect: exit code %d, want two draws:\n%s", code, out)
	}
}

// analyze play and analyze mnk simulate play the same games for the same
// players and seed: game i draws from (seed, i) in both, one generator
// shared by the two sides. The games' moves, hashed as simulate hashes
// them, sum to simulate's digest.
func TestPlayReplaysSimulatedGames(t *testing.T) {
	runsBinaries(t)
	const games, seed = 12, "21"
	for _, players := range [][2]string{{"random", "random"}, {"perfect", "random"}, {"random", "engine:depth=2"}} {
		out, stderr, code := pipe(t, "", nil, "play", "-x", players[0], "-o", players[1], "--games", fmt.Sprint(games), "--seed", seed, "--delay", "0")
		if code != 0 {
			t.Fatalf("play %v: exit %d: %s", players, code, stderr)
		}
		var digest uint64
		i := 0
		for line := range strings.Lines(out) {
			moves, ok := strings.CutPrefix(strings.TrimSpace(line), "moves: ")
			if !ok {
				continue
			}
			h := fnv.New64a()
			fmt.Fprintf(h, "%d:", i)
			for m := range strings.FieldsSeq(moves) {
				fmt.Fprintf(h, " %s", m)
			}
			digest += h.Sum64()
			i++
		}
		if i != games {
			t.Fatalf("play %v: %d games' moves in its output, want %d:\n%s", players, i, games, out)
		}
		js, err := run(t, "analyze", "mnk", "simulate", "-x", players[0], "-o", players[1], "--games", fmt.Sprint(games),
			"--seed", seed, "--json", "--data", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var rep struct{ Digest string }
		if err := json.Unmarshal([]byte(js), &rep); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%016x", digest); got != rep.Digest {
			t.Errorf("%v: play's games hash to %s, simulate's digest is %s", players, got, rep.Digest)
		}
	}
}

// A game written down (e, or the end of a game) is taken up again with
// --moves; a record that cannot be played is a usage error naming why.
func TestPlayFromAGameWrittenDown(t *testing.T) {
	runsBinaries(t)
	out, _, code := pipe(t, "e\n8\nq\n", nil, "play", "--moves", "3x3 k3: 1,1 0,0", "-o", "random", "--seed", "1")
	for _, want := range []string{"from 3x3 k3: 1,1 0,0\n", "game: 3x3 k3: 1,1 0,0\n", "X plays 2,2 (8)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, no %q in\n%s", code, want, out)
		}
	}
	out, _, code = pipe(t, "q\n", nil, "play", "--board", "4x4", "--k", "3", "--moves", "1,1 0,0", "-o", "random")
	if code != 0 || !strings.Contains(out, "from 4x4 k3: 1,1 0,0\n") {
		t.Errorf("moves on --board: exit %d\n%s", code, out)
	}
	expectUsageErrors(t, []usageCase{
		{[]string{"play", "--moves", "3x3 k3: 1,1 1,1"}, "--moves: game: move 2 1,1: the cell is taken"},
		{[]string{"play", "--moves", "3x3 k3: 0,0 1,0 0,1 1,1 0,2"}, "the game is over"},
		{[]string{"play", "--board", "4x4", "--moves", "3x3 k3: 1,1"}, "the game is 3x3 k3, not --board 4x4 --k 4"},
		{[]string{"play", "--moves", "3x3 k3: one"}, `move 1 "one": want row,col from 0`},
		{[]string{"play", "--moves", "3x3 k3: 5,5"}, "move 1 5,5: off the 3x3 board"},
	}, func([]string) bool { return false })
}
