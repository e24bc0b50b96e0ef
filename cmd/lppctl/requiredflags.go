package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// checkRequiredFlags has the commands check their required flags
// themselves: urfave/cli's check says `Required flag "step" not set` and
// may print the whole help on stdout; this one is a usage error that reads
// as the others do and names the command, on stderr only.
func checkRequiredFlags(cmds []*cli.Command) {
	for _, cmd := range cmds {
		var required []string
		for _, f := range cmd.Flags {
			switch f := f.(type) {
			case *cli.StringFlag:
				if f.Required {
					f.Required, required = false, append(required, f.Name)
				}
			case *cli.IntFlag:
				if f.Required {
					f.Required, required = false, append(required, f.Name)
				}
			}
		}
		if len(required) > 0 && cmd.Action != nil {
			action := cmd.Action
			cmd.Action = func(c *cli.Context) error {
				var missing []string
				for _, name := range required {
					if !c.IsSet(name) {
						missing = append(missing, "--"+name)
					}
				}
				if len(missing) > 0 {
					what := "flag " + missing[0]
					if len(missing) > 1 {
						what = "flags " + strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1]
					}
					return usageErrorf("%s needs %s (%s --help)", c.Command.HelpName, what, c.Command.HelpName)
				}
				return action(c)
			}
		}
		checkRequiredFlags(cmd.Subcommands)
	}
}
