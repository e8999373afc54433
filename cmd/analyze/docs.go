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
// its synopsis, description and flags, in the order of the help, then the
// cluster flags that every job command shares, listed once.
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
	shared := map[string]string{} // a cluster flag's row, as the first command that has it writes it
	var sharedOrder []string
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			name := strings.TrimSpace(prefix + " " + c.Name)
			if prefix == "analyze" {
				// The list of commands: a line per command of analyze,
				// its subcommands linked by name.
				fmt.Fprintf(&b, "- [`%s`](#%s): %s", name, anchor(name), c.Usage)
				var subs []string
				for _, sc := range c.Subcommands {
					if !sc.Hidden {
						subs = append(subs, fmt.Sprintf("[`%s`](#%s)", sc.Name, anchor(name+" "+sc.Name)))
					}
				}
				if len(subs) > 0 {
					fmt.Fprintf(&b, ": %s", strings.Join(subs, ", "))
				}
				b.WriteString("\n")
			}
			for _, f := range sortedFlags(c) {
				if n := f.Names()[0]; isClusterFlag(n) && shared[n] == "" && hasFlag(c, "nats") {
					shared[n] = flagRow(f)
					sharedOrder = append(sharedOrder, n)
				}
			}
			sections = append(sections, section(name, c, shared))
			walk(name, c.Subcommands)
		}
	}
	walk("analyze", app.Commands)
	b.WriteString("- [Cluster flags](#cluster-flags): where jobs run, the NATS connection's credentials and TLS, the output\n\n")
	for _, s := range sections {
		b.WriteString(s)
	}
	b.WriteString("## Cluster flags\n\nThe commands that run or look at jobs take these flags: each says which under its own.\n\n")
	b.WriteString("| flag | meaning | default |\n|---|---|---|\n")
	for _, n := range sharedOrder {
		b.WriteString(shared[n])
	}
	b.WriteString("\n")
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

// isClusterFlag reports whether name is one of jobFlags, the flags of the
// commands that run or look at jobs (clusterFlags, and those of running
// one): the reference lists them once, under "Cluster flags", and a
// command's table leaves out those it has as listed there.
func isClusterFlag(name string) bool {
	return slices.ContainsFunc(jobFlags(), func(f cli.Flag) bool { return f.Names()[0] == name })
}

// hasFlag reports whether c has a visible flag called name.
func hasFlag(c *cli.Command, name string) bool {
	return slices.ContainsFunc(c.VisibleFlags(), func(f cli.Flag) bool { return f.Names()[0] == name })
}

// sortedFlags returns a command's visible flags by name.
func sortedFlags(c *cli.Command) []cli.Flag {
	flags := c.VisibleFlags()
	slices.SortStableFunc(flags, func(x, y cli.Flag) int { return strings.Compare(x.Names()[0], y.Names()[0]) })
	return flags
}

// flagRow is a flag's line of a table of flags.
func flagRow(f cli.Flag) string {
	names, placeholder, usage := flagText(f)
	return fmt.Sprintf("| `%s%s` | %s | %s |\n", names, placeholder, cell(usage), cell(flagDefault(f)))
}

// section documents one command; a flag whose row is the one in shared is
// left to the section of cluster flags.
func section(name string, c *cli.Command, shared map[string]string) string {
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
	flags := sortedFlags(c)
	// Only a command that reaches a cluster (it has --nats as listed
	// there) leaves its cluster flags to that section.
	cluster := slices.ContainsFunc(flags, func(f cli.Flag) bool {
		return f.Names()[0] == "nats" && flagRow(f) == shared["nats"]
	})
	var rows, left []string
	connection := false // a credential or TLS flag left to that section
	for _, f := range flags {
		row := flagRow(f)
		if cluster && row == shared[f.Names()[0]] {
			if n := f.Names()[0]; strings.HasPrefix(n, "nats-") || strings.HasPrefix(n, "tls-") {
				connection = true
			} else {
				left = append(left, "`--"+n+"`")
			}
			continue
		}
		rows = append(rows, row)
	}
	if len(rows) > 0 {
		b.WriteString("| flag | meaning | default |\n|---|---|---|\n")
		b.WriteString(strings.Join(rows, ""))
		b.WriteString("\n")
	}
	if cluster {
		fmt.Fprintf(&b, "And the [cluster flags](#cluster-flags) %s", strings.Join(left, ", "))
		if connection {
			b.WriteString(", with the NATS credentials and TLS")
		}
		b.WriteString(".\n\n")
	}
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
