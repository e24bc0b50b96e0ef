package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// setSubcommandAction gives a command made of subcommands (skills, mcp,
// import...) and without an action of its own one that refuses what is not
// one of them: alone, it prints its help on stderr and exits 2, as lppctl
// alone does; with an unknown word, a usage error naming the subcommands
// (urfave/cli would say "No help topic" and exit 1).
func setSubcommandAction(cmd *cli.Command) {
	if len(cmd.Subcommands) == 0 || cmd.Action != nil {
		return
	}
	cmd.Action = func(c *cli.Context) error {
		if c.NArg() == 0 {
			cli.HelpPrinter(c.App.ErrWriter, cli.SubcommandHelpTemplate, cmd)
			return withCode(exitUsage, errors.New(""))
		}
		return unknownSubcommand(cmd, c.Args().First())
	}
}

// unknownSubcommand is the usage error of a word that is not one of cmd's
// subcommands.
func unknownSubcommand(cmd *cli.Command, word string) error {
	var names []string
	for _, s := range cmd.Subcommands {
		if !s.Hidden && s.Name != "help" {
			names = append(names, s.Name)
		}
	}
	return usageErrorf("unknown %s subcommand %q: use %s", cmd.Name, word, orList(names))
}

// orList joins names as "a, b or c"; andList as "a, b and c".
func orList(names []string) string  { return joinLast(names, "or") }
func andList(names []string) string { return joinLast(names, "and") }

func joinLast(names []string, word string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return fmt.Sprintf("%s %s %s", strings.Join(names[:len(names)-1], ", "), word, names[len(names)-1])
}
