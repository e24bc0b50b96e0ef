package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print lppctl's manual page (roff), generated from the commands and flags",
		Description: "Install it with, e.g.:\n\n" +
			"   lppctl man > ~/.local/share/man/man1/lppctl.1 && man lppctl",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("man takes no arguments")
			}
			page, err := c.App.ToManWithSection(1)
			if err != nil {
				return fmt.Errorf("cannot write the manual page: %w", err)
			}
			fmt.Fprint(c.App.Writer, page)
			return nil
		},
	}
}
