package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Bad nineboard input: one line on stderr, exit code 2, nothing started.
func TestNineboardBadInputExitCode2(t *testing.T) {
	runsBinaries(t)
	cases := []usageCase{
		{[]string{"nineboard", "perft"}, "--depth"},
		{[]string{"nineboard", "perft", "--depth", "13"}, "0 to 12"},
		{[]string{"nineboard", "perft", "--depth", "-1"}, "0 to 12"},
		{[]string{"nineboard", "perft", "--depth", "x"}, "depth"},
		{[]string{"nineboard", "perft", "--depth", "3", "--variant", "classic"}, "first-triple or ultimate"},
		{[]string{"nineboard", "perft", "--depth", "3", "extra"}, "no arguments"},
		{[]string{"nineboard", "agent"}, "--port"},
		{[]string{"nineboard", "agent", "--port", "70000"}, "1 to 65535"},
		{[]string{"nineboard", "agent", "--port", "1", "--move-time", "-1s"}, "--move-time"},
		{[]string{"nineboard", "agent", "--port", "1", "--move-time", "soon"}, "move-time"},
		{[]string{"nineboard", "match", "--x", "human"}, "--x: player \"human\""},
		{[]string{"nineboard", "match", "--o", "engine:depth=99"}, "1 to 30"},
		{[]string{"nineboard", "match", "--o", "engine:time=0s"}, "1ms"},
		{[]string{"nineboard", "match", "--games", "0"}, "games 0"},
		{[]string{"nineboard", "match", "--variant", "misere"}, "first-triple or ultimate"},
		{[]string{"nineboard", "match", "--games-per-task", "-2"}, "games per task"},
		{[]string{"nineboard", "match", "--detach"}, "--detach needs --nats"},
		{[]string{"nineboard", "nosuch"}, "nosuch"},
	}
	expectUsageErrors(t, cases, func(args []string) bool { return args[1] == "match" })
}

func TestNineboardPerftJSON(t *testing.T) {
	runsBinaries(t)
	for _, c := range []struct {
		variant string
		want    float64
	}{{"first-triple", 4015008}, {"ultimate", 4020960}} {
		out, err := exec.Command(binary("analyze"), "nineboard", "perft", "--depth", "6", "--variant", c.variant, "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(out, &obj); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if obj["nodes"] != c.want || obj["depth"] != 6.0 || obj["variant"] != c.variant {
			t.Errorf("%s: %v, want nodes %v", c.variant, obj, c.want)
		}
	}
}

func TestNineboardMatchJSON(t *testing.T) {
	runsBinaries(t)
	run := func(workers string) map[string]any {
		cmd := exec.Command(binary("analyze"), "nineboard", "match", "--x", "engine:depth=3", "--o", "random",
			"--games", "20", "--seed", "9", "--json", "--quiet", "--workers", workers, "--data", t.TempDir())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		var obj map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil {
			t.Fatalf("%s: %v", stdout.String(), err)
		}
		return obj
	}
	a, b := run("1"), run("3")
	for _, f := range []string{"x_wins", "o_wins", "draws", "average_length", "digest", "played"} {
		if a[f] != b[f] {
			t.Errorf("%s: %v with 1 worker, %v with 3", f, a[f], b[f])
		}
	}
	x := a["x"].(map[string]any)
	if a["played"] != 20.0 || x["wins"].(float64) < 19 || x["nodes_per_move"].(float64) <= 0 {
		t.Errorf("report %v", a)
	}
}

// The agent binary against a scripted referee on 127.0.0.1: it answers a
// request with a cell of the right board, survives garbage and a referee
// that hangs up mid-game, and exits with a message, not a crash.
func TestNineboardAgentBinary(t *testing.T) {
	runsBinaries(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	for _, hangUp := range []bool{false, true} {
		cmd := exec.Command(binary("analyze"), "nineboard", "agent", "--host", "127.0.0.1", "--port", port, "--move-time", "20ms")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		conn, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		conn.Write([]byte("init.\nnonsense(.\nstart(o).\nsecond_move(5,3).\n"))
		line, err := bufio.NewReader(conn).ReadString('\n')
		if n, _ := strconv.Atoi(strings.TrimSpace(line)); err != nil || n < 1 || n > 9 {
			t.Errorf("reply %q, %v: want a cell 1-9", line, err)
		}
		if !hangUp {
			conn.Write([]byte("loss(timeout).\nend.\n"))
		}
		conn.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatal("agent still running after the referee left")
		}
		out := stderr.String()
		if strings.Contains(out, "panic") || !strings.Contains(out, "malformed") || !strings.Contains(out, "depth=") {
			t.Errorf("hang up %v: stderr %s", hangUp, out)
		}
		var exit *exec.ExitError
		switch {
		case !hangUp && err != nil:
			t.Errorf("agent after end.: %v\n%s", err, out)
		case hangUp && (!errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, "during a game")):
			t.Errorf("agent after a hang-up: %v, want exit code 1 saying so\n%s", err, out)
		}
	}
}
