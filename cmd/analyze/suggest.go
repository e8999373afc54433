package main

import (
	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/cmd/internal/suggest"
)

// noCommand is the usage error of an unknown command name under parent
// ("" for analyze itself), with the nearest command when one is near.
func noCommand(parent string, cmds []*cli.Command, name string) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	path, help := "", "analyze --help"
	if parent != "" {
		path, help = parent+": ", "analyze "+parent+" --help"
	}
	if s := suggest.Nearest(name, names); s != "" {
		return usagef("%sno command %q: did you mean %s? (see %s)", path, name, s, help)
	}
	return usagef("%sno command %q (see %s)", path, name, help)
}
