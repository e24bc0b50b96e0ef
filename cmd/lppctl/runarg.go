package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// runArg returns the run ID a command takes as its single argument. No
// argument asks which run (usage shows how to name one); more than one is
// refused, not read as the first.
func runArg(c *cli.Context, usage string) (string, error) {
	switch c.NArg() {
	case 0:
		return "", usageErrorf("which run? give its ID: %s", usage)
	case 1:
		return c.Args().First(), nil
	}
	return "", usageErrorf("one run at a time: give one RUN_ID, not %d (%s): %s", c.NArg(), strings.Join(c.Args().Slice(), " "), usage)
}
