package main

import (
	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the JSON Schema of the spec format (for editors)",
		Description: "Prints the JSON Schema (draft-07) that docs/spec.schema.json holds. Point\n" +
			"yaml-language-server at it with `# yaml-language-server: $schema=PATH` on a spec's first line.",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("schema takes no arguments")
			}
			_, err := c.App.Writer.Write(machine.JSONSchema())
			return err
		},
	}
}
