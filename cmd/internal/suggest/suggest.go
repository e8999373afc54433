// Package suggest finds what a user who mistyped a command or a flag
// meant: the nearest name within a typo's reach.
package suggest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// FlagError is the message of a usage error that urfave/cli (Go's flag
// package) reports: a long flag written with two dashes, as users type it
// ("-bord" becomes "--bord"), and for a flag that is not defined, the
// nearest of flags ("flag provided but not defined: --bord: did you mean
// --board?").
func FlagError(flags []cli.Flag, err error) string {
	msg := longFlag.ReplaceAllString(err.Error(), "$1--$2")
	typed, ok := strings.CutPrefix(msg, "flag provided but not defined: ")
	if !ok {
		return msg
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	if s := Nearest(strings.TrimLeft(typed, "-"), names); s != "" {
		dashes := "--"
		if len(s) == 1 {
			dashes = "-"
		}
		return fmt.Sprintf("%s: did you mean %s%s?", msg, dashes, s)
	}
	return msg
}

// Flags are the flags of the command that c runs (the app's at the top).
func Flags(c *cli.Context) []cli.Flag {
	if c.Command != nil && c.Command.Name != "" {
		return c.Command.Flags
	}
	return c.App.Flags
}

// longFlag finds a long flag named with one dash, as Go's flag package
// writes it ("flag provided but not defined: -bogus").
var longFlag = regexp.MustCompile(`(^|\s)-([a-z][a-z0-9-]+)`)

// Nearest returns the name of names nearest typed, if it is within a
// typo's reach (an edit for every three letters typed, at least one, none
// for a single letter: a letter left out, added, changed, or two
// swapped), else "".
func Nearest(typed string, names []string) string {
	reach := max(1, len(typed)/3)
	if len(typed) < 2 {
		reach = 0
	}
	best, bestD := "", reach+1
	for _, n := range names {
		if d := editDistance(typed, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: the
// fewest insertions, deletions, substitutions and swaps of adjacent
// letters that turn a into b.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
