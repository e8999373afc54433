package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// docsCommand prints the CLI reference, docs/cli.md, from the commands'
// own definitions, so that it says what the binary does (a test compares
// the two).
func docsCommand() *cli.Command {
	return &cli.Command{
		Name:   "docs",
		Usage:  "print the CLI reference in Markdown (docs/cli.md)",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return writeReference(c.App.Writer, c.App)
		},
	}
}

// writeReference writes the reference of app: a section per command with
// its synopsis, description and flags, in the order of the help.
func writeReference(w io.Writer, app *cli.App) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# analyze: command-line reference\n\n")
	fmt.Fprintf(&b, "Generated from the command definitions by `go run ./cmd/analyze docs > docs/cli.md`; a test\n")
	fmt.Fprintf(&b, "fails when this file and the binary disagree. `analyze COMMAND --help` prints the same.\n\n")
	fmt.Fprintf(&b, "%s\n\n%s\n\n", app.Usage, app.Description)
	fmt.Fprintf(&b, "Exit codes: 0 done; 1 a failure (a job failed, was cancelled, or has failed tasks); 2 a usage\n")
	fmt.Fprintf(&b, "error (nothing is started); 130 interrupted (the job keeps its state: the same command resumes it).\n\n")
	b.WriteString("Global flags: `--version`, `-v` (the build: module version and VCS revision), `--help`, `-h`.\n\n")
	b.WriteString("## Commands\n\n")
	var walk func(prefix string, cmds []*cli.Command)
	var sections []string
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			name := strings.TrimSpace(prefix + " " + c.Name)
			fmt.Fprintf(&b, "- [`%s`](#%s): %s\n", name, anchor(name), c.Usage)
			sections = append(sections, section(name, c))
			walk(name, c.Subcommands)
		}
	}
	walk("analyze", app.Commands)
	b.WriteString("\n")
	for _, s := range sections {
		b.WriteString(s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// anchor is the fragment GitHub gives a heading.
func anchor(heading string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return -1
	}, strings.ToLower(heading))
}

// section documents one command.
func section(name string, c *cli.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s\n\n", name, c.Usage)
	synopsis := name
	if len(c.Subcommands) > 0 {
		synopsis += " COMMAND"
	}
	if len(c.VisibleFlags()) > 0 {
		synopsis += " [flags]"
	}
	if c.ArgsUsage != "" {
		synopsis += " " + c.ArgsUsage
	}
	fmt.Fprintf(&b, "```\n%s\n```\n\n", synopsis)
	if c.Description != "" {
		fmt.Fprintf(&b, "```text\n%s\n```\n\n", strings.TrimSpace(c.Description))
	}
	flags := c.VisibleFlags()
	if len(flags) == 0 {
		return b.String()
	}
	slices.SortStableFunc(flags, func(x, y cli.Flag) int { return strings.Compare(x.Names()[0], y.Names()[0]) })
	b.WriteString("| flag | meaning | default |\n|---|---|---|\n")
	for _, f := range flags {
		names, placeholder, usage := flagText(f)
		fmt.Fprintf(&b, "| `%s%s` | %s | %s |\n", names, placeholder, cell(usage), cell(flagDefault(f)))
	}
	b.WriteString("\n")
	return b.String()
}

// flagText returns a flag's names as typed ("--out, -o"), the placeholder
// of its value (" FILE", from the back-quoted word of its usage), and its
// usage without the quotes.
func flagText(f cli.Flag) (names, placeholder, usage string) {
	var parts []string
	for _, n := range f.Names() {
		if len(n) == 1 {
			parts = append(parts, "-"+n)
		} else {
			parts = append(parts, "--"+n)
		}
	}
	usage = f.(cli.DocGenerationFlag).GetUsage()
	if i := strings.Index(usage, "`"); i >= 0 {
		if j := strings.Index(usage[i+1:], "`"); j >= 0 {
			placeholder = " " + usage[i+1:i+1+j]
			usage = usage[:i] + usage[i+1:i+1+j] + usage[i+2+j:]
		}
	}
	if placeholder == "" && f.(cli.DocGenerationFlag).TakesValue() {
		placeholder = " VALUE"
	}
	if env := f.(cli.DocGenerationFlag).GetEnvVars(); len(env) > 0 {
		usage += " (env " + strings.Join(env, ", ") + ")"
	}
	return strings.Join(parts, ", "), placeholder, usage
}

// flagDefault is a flag's default as the help shows it, or "".
func flagDefault(f cli.Flag) string {
	d := f.(cli.DocGenerationFlag)
	if t := d.GetDefaultText(); t != "" {
		return t
	}
	if !d.TakesValue() {
		return ""
	}
	return d.GetValue()
}

// cell escapes a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
