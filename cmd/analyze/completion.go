package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// Completion scripts for the shells that analyze completes in. Each asks
// analyze itself for the words that may come next: urfave/cli answers
// when the last argument is --generate-bash-completion (the app sets
// EnableBashCompletion) with the subcommands of the command line so far,
// or, after an argument "-", with every flag of the command, which the
// shell filters by the word being completed. They follow the scripts
// urfave/cli ships in its autocomplete directory, with two changes: the
// word being completed is passed as "-" (urfave/cli does not complete
// after "--", and runs the command instead), and nothing is asked once the
// line holds "--" (after which every word is an argument).
var completions = map[string]string{
	"bash": `# bash completion for analyze: add to ~/.bashrc
#   source <(analyze completion bash)
_analyze_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local -a words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local w opts
  COMPREPLY=()
  for w in "${words[@]}"; do
    [[ $w == -- ]] && return 0
  done
  if [[ $cur == -* ]]; then
    opts=$("${words[@]}" - --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o bashdefault -o default -F _analyze_complete analyze
`,
	"zsh": `#compdef analyze
# zsh completion for analyze: add to ~/.zshrc (after compinit)
#   source <(analyze completion zsh)
_analyze() {
  local -a opts
  local cur=${words[-1]}
  if (( ${words[(I)--]} )); then
    _files
    return
  fi
  if [[ $cur == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} - --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ -n ${opts[1]} ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _analyze analyze
`,
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script for bash or zsh",
		ArgsUsage: "bash|zsh",
		Description: "Prints a script that completes analyze's commands and flags in the shell named.\n\n" +
			"Examples:\n   source <(analyze completion bash)    (in ~/.bashrc)\n" +
			"   source <(analyze completion zsh)     (in ~/.zshrc, after compinit)",
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			script, ok := completions[c.Args().First()]
			if c.NArg() != 1 || !ok {
				return usagef("completion: want one shell, bash or zsh, got %q", c.Args().Slice())
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}
