package main

import (
	"github.com/urfave/cli/v2"
)

// checkRequiredFlags has cmd check its required flags itself: urfave/cli's
// check says `Required flag "step" not set` and may print the whole help on
// stdout; this one is a usage error that reads as the others do and names
// the command, on stderr only.
func checkRequiredFlags(cmd *cli.Command) {
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
	if len(required) == 0 || cmd.Action == nil {
		return
	}
	action := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		var missing []string
		for _, name := range required {
			if !c.IsSet(name) {
				missing = append(missing, "--"+name)
			}
		}
		switch len(missing) {
		case 0:
			return action(c)
		case 1:
			return usageErrorf("%s needs flag %s (%s --help)", c.Command.HelpName, missing[0], c.Command.HelpName)
		}
		return usageErrorf("%s needs flags %s (%s --help)", c.Command.HelpName, andList(missing), c.Command.HelpName)
	}
}
