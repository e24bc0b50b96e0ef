package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "Prints a script that makes the shell complete lppctl's commands and flags. Load it\n" +
			"with, e.g.:\n\n" +
			"   source <(lppctl completion bash)            # in ~/.bashrc\n" +
			"   source <(lppctl completion zsh)             # in ~/.zshrc, after compinit\n" +
			"   lppctl completion fish > ~/.config/fish/completions/lppctl.fish",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("which shell? lppctl completion bash|zsh|fish")
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return fmt.Errorf("cannot write the fish completion: %w", err)
				}
				fmt.Fprint(c.App.Writer, strings.TrimRight(script, "\n")+"\n")
			default:
				return usageErrorf("cannot complete for shell %q: give bash, zsh or fish", shell)
			}
			return nil
		},
	}
}

// bashCompletion asks lppctl itself (urfave/cli's --generate-bash-completion)
// for the words that may follow; it needs no bash-completion package.
const bashCompletion = `# bash completion for lppctl: source <(lppctl completion bash)
_lppctl_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _lppctl_complete lppctl
`

const zshCompletion = `#compdef lppctl
# zsh completion for lppctl: source <(lppctl completion zsh)
_lppctl_complete() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _lppctl_complete lppctl
`
