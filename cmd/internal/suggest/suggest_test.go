package suggest

import (
	"errors"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestNearest(t *testing.T) {
	names := []string{"count", "solve", "search", "minimax", "simulate", "sweep", "verify", "board", "k", "json"}
	for _, c := range []struct{ typed, want string }{
		{"cout", "count"},       // a letter left out
		{"coutn", "count"},      // two swapped
		{"solv", "solve"},       // the last left out
		{"serach", "search"},    // two swapped
		{"simulat", "simulate"}, // long: two edits allowed from six letters
		{"jsno", "json"},
		{"kk", "k"},
		{"board", "board"},
		{"zzzz", ""}, // nothing near
		{"x", ""},
		{"verifyall", "verify"}, // three edits from nine letters
		{"verifyalll", ""},
	} {
		if got := Nearest(c.typed, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"ab", "ba", 1}, {"kitten", "sitting", 3}, {"count", "count", 0}, {"ca", "abc", 3}} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestFlagError(t *testing.T) {
	flags := []cli.Flag{&cli.StringFlag{Name: "board"}, &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}}}
	for _, c := range []struct{ err, want string }{
		{"flag provided but not defined: -bord", "flag provided but not defined: --bord: did you mean --board?"},
		{"flag provided but not defined: -quite", "flag provided but not defined: --quite: did you mean --quiet?"},
		{"flag provided but not defined: -zzzzzz", "flag provided but not defined: --zzzzzz"},
		{"invalid value \"x\" for flag -board: parse error", "invalid value \"x\" for flag --board: parse error"},
	} {
		if got := FlagError(flags, errors.New(c.err)); got != c.want {
			t.Errorf("FlagError(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
