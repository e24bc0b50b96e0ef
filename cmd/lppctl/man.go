package main

import (
	"fmt"
	"regexp"
	"strings"

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
			if tool := c.App.Command("tool"); tool != nil {
				page = manTool(page, tool.Usage)
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

// manTool adds to the page, under tool's heading (usage its one-line
// usage), tool's own usage and flags (toolUsage): tool parses its flags
// itself, so urfave/cli, which writes the page, knows none of them.
func manTool(page, usage string) string {
	head := ".SH tool\n" + usage + "\n"
	i := strings.Index(page, head)
	if i < 0 {
		return page
	}
	i += len(head)
	var b strings.Builder
	b.WriteString(".PP\n.nf\n")
	for line := range strings.SplitSeq(strings.TrimRight(toolUsage, "\n"), "\n") {
		line = strings.ReplaceAll(line, `\`, `\e`)
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			line = `\&` + line
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(".fi\n")
	return page[:i] + b.String() + page[i:]
}
