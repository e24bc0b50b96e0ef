package main

import (
	"fmt"
	"regexp"

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
			fmt.Fprint(c.App.Writer, manFlagValues(page))
			return nil
		},
	}
}

// manFlag matches a flag's line as urfave/cli renders it, with an empty
// value whatever the flag's default: \fB--root\fP="": the project root \fBDIR\fR ...
var (
	manFlag        = regexp.MustCompile(`(?m)^(\\fB-[^\n]*?\\fP)="": (.*)$`)
	manPlaceholder = regexp.MustCompile(`\\fB([A-Za-z][A-Za-z0-9_.\[\]:-]*)\\fR`)
)

// manFlagValues shows each flag's value as the placeholder its usage names
// (the word in \fB...\fR, e.g. DIR), or "value", instead of ="".
func manFlagValues(page string) string {
	return manFlag.ReplaceAllStringFunc(page, func(line string) string {
		m := manFlag.FindStringSubmatch(line)
		value := "value"
		if p := manPlaceholder.FindStringSubmatch(m[2]); p != nil {
			value = p[1]
		}
		return m[1] + `=\fI` + value + `\fP: ` + m[2]
	})
}
